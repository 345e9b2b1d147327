/**
 * `npm run -s expire-ttl -- [--hours <n>]`: runs the DynamoDB TTL stand-in once on DATA_DIR's data (the
 * running `npm start`'s, which also runs it every minute), at a clock `n` hours ahead (default 0): items
 * expired by then are deleted and the library sweeper is given their stream records. Prints the counts.
 */
import { cliArgs } from './cli-args.ts';
import { useLocalStore } from './local-store.ts';
import { ttlStandIn } from '../lib/local/ttl.ts';

const args = cliArgs({ hours: { type: 'string' } });
const hours = Number(args.hours ?? 0);
if (!Number.isFinite(hours) || hours < 0) {
  process.stderr.write('usage: npm run -s expire-ttl -- [--hours <n>]   (n >= 0: how far ahead of now the clock is)\n');
  process.exit(2);
}
const storage = await useLocalStore();
const ttl = ttlStandIn(storage, process.env.TABLE_NAME as string);
try {
  const run = await ttl.run(Date.now() + hours * 3_600_000);
  process.stdout.write(`expired\t${run.expired}\nswept\t${run.swept}\nretrying\t${run.retrying}\n`);
  // Those stay expired in the table: the next run (or npm start's, every minute) hands them over again.
  if (run.retrying > 0) process.exitCode = 1;
} finally {
  ttl.close();
  await storage.close();
}
