/**
 * Runs one benchmark suite in its own process (the handlers' SDK clients and Powertools singletons are
 * configured once per process, as in Lambda) and sends its figures to the runner over IPC.
 */
import type { Figure } from './support/report.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';

// Loopback only, whatever is imported first: an SDK client created before the local stack sets the real
// endpoints gets the discard port on 127.0.0.1 (connection refused), never an AWS address.
Object.assign(process.env, {
  ...LOCAL_AWS_ENV,
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  S3_ENDPOINT: 'http://127.0.0.1:9',
});

const name = process.argv[2];
if (!name || !/^[a-z-]+$/.test(name)) throw new Error(`usage: suite.ts <suite>`);
const suite = (await import(`./${name}.ts`)) as { run(): Promise<Figure[]> };
const figures = await suite.run();
if (process.send) process.send({ figures }, () => process.exit(0));
else {
  process.stderr.write(`${JSON.stringify(figures, null, 2)}\n`);
  process.exit(0);
}
