import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'client/test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // One DynamoDB Local for the run (each file's service makes a table of its own on it).
    globalSetup: ['test/support/engine.ts'],
    // The service reads its configuration once; tests change the environment, which then re-reads it.
    setupFiles: ['test/support/reload-config.ts'],
    // Each file starts its own local service; files run in separate processes so their module singletons
    // (SDK clients configured from the environment) never mix. Two workers: the machine has two cores.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      POWERTOOLS_METRICS_DISABLED: 'true',
      // Safety net: an SDK client created before the local endpoints are known goes to a closed loopback
      // port, never to a real AWS endpoint. Clients given an explicit endpoint are unaffected.
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      AWS_REGION: 'us-east-1',
    },
  },
});
