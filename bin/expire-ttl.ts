/**
 * `npm run -s expire-ttl -- [--hours <n>]`: runs the DynamoDB TTL stand-in once on DATA_DIR's data at a
 * clock `n` hours ahead (default 0): items expired by then are deleted, and their deletions travel the
 * table stream to the library sweeper. While `npm start` runs on DATA_DIR (it also runs the stand-in every
 * minute), its stream consumer hands them over; otherwise this command does, and prints what the sweeper did.
 */
import { resolve } from 'node:path';
import { cliArgs, dataDirFromEnv } from './cli-args.ts';
import { useLocalStore } from './local-store.ts';
import { ttlStandIn, withTtlIdentity } from '../lib/local/ttl.ts';
import { tableStream } from '../lib/local/table-stream.ts';
import { fromSource, LIBRARY_SWEEPER, streamCheckpointFile, streamConsumers } from '../lib/local/stream-consumers.ts';

const args = cliArgs({ hours: { type: 'string' } });
const hours = Number(args.hours ?? 0);
if (!Number.isFinite(hours) || hours < 0) {
  process.stderr.write('usage: npm run -s expire-ttl -- [--hours <n>]   (n >= 0: how far ahead of now the clock is)\n');
  process.exit(2);
}
const storage = await useLocalStore();
const tableName = process.env.TABLE_NAME as string;
const ttl = ttlStandIn(storage, tableName);
try {
  const expired = await ttl.run(Date.now() + hours * 3_600_000);
  process.stdout.write(`expired\t${expired}\n`);
  if (storage.serverPid !== undefined) {
    process.stdout.write(
      `swept\tby the running server (pid ${storage.serverPid}): its stream consumer hands the deletions over\n`,
    );
  } else {
    const stream = tableStream(storage, tableName, streamConsumers(fromSource, [LIBRARY_SWEEPER]), {
      checkpointFile: streamCheckpointFile(resolve(dataDirFromEnv())),
      prepare: withTtlIdentity,
    });
    const report = (await stream.drain())[LIBRARY_SWEEPER.name] as { handled: number; retrying: number };
    await stream.close();
    process.stdout.write(`swept\t${report.handled}\nretrying\t${report.retrying}\n`);
    // Those stay in the stream: the next run (or npm start's consumer) hands them over again.
    if (report.retrying > 0) process.exitCode = 1;
  }
} finally {
  ttl.close();
  await storage.close();
}
