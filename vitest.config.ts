import { defineConfig } from 'vitest/config';

/**
 * The files that run a second time with every function from its synthesized asset in cdk.out.local
 * (LOCAL_BUNDLES=1, lib/local/bundles/): the end-to-end flow, the interface's conformance (the client
 * package over every endpoint, baskets, orders, the library), renditions of every accepted format and the
 * resumable upload, webhooks and artwork, a request followed across functions. Files that reach into the handlers' process (fault injection on their SDK clients, an
 * event published in process) run from source only.
 */
const BUNDLE_FILES = [
  'test/integration/smoke.test.ts',
  'test/integration/baskets.test.ts',
  'test/integration/orders.test.ts',
  'test/integration/idempotency.test.ts',
  'test/integration/checkout-repricing.test.ts',
  'test/integration/authorization-matrix.test.ts',
  'test/integration/library-read.test.ts',
  'test/integration/library-multipart.test.ts',
  'test/integration/renditions.test.ts',
  'test/integration/renditions-concurrent.test.ts',
  'test/integration/image-bombs.test.ts',
  'test/integration/renditions-decode-limits.test.ts',
  'test/integration/webhooks.test.ts',
  'test/integration/webhook-delivery.test.ts',
  'test/integration/webhook-partner-forms.test.ts',
  'test/integration/webhook-retries.test.ts',
  'test/integration/webhook-library-events.test.ts',
  'test/integration/webhook-key-revocation.test.ts',
  'test/integration/webhook-redelivery-bounds.test.ts',
  'test/integration/request-correlation.test.ts',
  'test/integration/webhook-pause.test.ts',
  'test/integration/order-artwork.test.ts',
  'test/integration/artwork-holds.test.ts',
  'test/integration/artwork-hold-window.test.ts',
  'test/integration/artwork-ownership.test.ts',
  'test/integration/artwork-unpaid-hold.test.ts',
  'test/integration/artwork-held-erasure.test.ts',
  'test/integration/order-cancel.test.ts',
  'test/integration/artwork-links.test.ts',
  'client/test/endpoints.test.ts',
];

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // The run's DynamoDB Local engines (each file's service leases one and makes a table of its own on it), and the local stack
    // synthesized once for the files that run the assets.
    globalSetup: ['test/support/engine.ts', 'test/support/synthesized.ts'],
    // The service reads its configuration once; tests change the environment, which then re-reads it. The
    // functions' metrics go to the run's metric log, not the output.
    setupFiles: ['test/support/reload-config.ts', 'test/support/emitted-metrics.ts'],
    // Each file starts its own local service; files run in separate processes so their module singletons
    // (SDK clients configured from the environment) never mix. Two workers: the machine has two cores.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      // On, as in AWS: the emitted-metrics check (test/support/metrics) holds the dashboard to what they emit.
      POWERTOOLS_METRICS_DISABLED: 'false',
      // Safety net: an SDK client created before the local endpoints are known goes to a closed loopback
      // port, never to a real AWS endpoint. Clients given an explicit endpoint are unaffected.
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      AWS_REGION: 'us-east-1',
    },
    projects: [
      { extends: true, test: { name: 'source', include: ['test/**/*.test.ts', 'client/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'bundles', include: BUNDLE_FILES, env: { LOCAL_BUNDLES: '1' } } },
    ],
  },
});
