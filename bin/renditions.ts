/**
 * Makes the renditions of library items stored before renditions existed (or whose event was lost):
 *
 *   npm run -s renditions -- --missing                                  (the local stack of DATA_DIR)
 *   npm run -s renditions -- --missing --table <TableName> --bucket <BucketName>   (a deployed stage)
 *
 * With --table and --bucket (stack outputs) it works on AWS with the usual credentials and region
 * (AWS_PROFILE, AWS_REGION, ...): the same service code as the renditions function, run here. It scans
 * the table (a Scan: a one-off command, never a request) for item records without a renditions state and
 * makes them one at a time, and for library entries whose state differs from their item record's and
 * copies the record's (EntryRepaired). An item that fails for a reason other than its image is left for
 * the next run, and the exit code is 1. Resumable: every item done is recorded on its record, so a run that
 * stops is finished by running it again; `--after <cursor>` (printed after each page) skips what was
 * scanned.
 * Prints one line per item (guid and outcome) and the counts.
 */
import { cliArgs } from './cli-args.ts';
import { useLocalStore } from './local-store.ts';

const args = cliArgs({
  missing: { type: 'boolean' },
  table: { type: 'string' },
  bucket: { type: 'string' },
  after: { type: 'string' },
});
if (!args.missing || Boolean(args.table) !== Boolean(args.bucket)) {
  process.stderr.write(
    'usage: npm run -s renditions -- --missing [--table <TableName> --bucket <BucketName>] [--after <cursor>]\n',
  );
  process.exit(2);
}
if (args.table && args.bucket) {
  process.env.TABLE_NAME = args.table;
  process.env.BUCKET_NAME = args.bucket;
}
const storage = args.table ? undefined : await useLocalStore();
// Store modules read the environment when they load: imported only now.
const { scanRenditionsWork } = await import('./renditions-scan.ts');
const { makeRenditions, repairEntry } = await import('../functions/services/rendition-service.ts');

const counts: Record<string, number> = {};
let after = args.after
  ? (JSON.parse(Buffer.from(args.after, 'base64url').toString()) as Record<string, unknown>)
  : undefined;
try {
  do {
    const page = await scanRenditionsWork(after);
    // One at a time. Every item record is committed: a commit writes its records in one transaction.
    const work: { itemGuid: string; run: () => Promise<string> }[] = [
      ...page.itemGuids.map((itemGuid) => ({ itemGuid, run: () => makeRenditions(itemGuid, { finalAttempt: false }) })),
      ...page.entries.map((entry) => ({ itemGuid: entry.itemGuid, run: () => repairEntry(entry) })),
    ];
    for (const { itemGuid, run } of work) {
      // A storage failure leaves the item or entry as it was: the next run tries it again.
      const outcome = await run().catch((error: unknown) => {
        process.stderr.write(`${itemGuid}\t${String(error)}\n`);
        process.exitCode = 1;
        return 'NotYet';
      });
      if (outcome === 'EntryAgrees') continue;
      counts[outcome] = (counts[outcome] ?? 0) + 1;
      process.stdout.write(`${itemGuid}\t${outcome}\n`);
    }
    after = page.next;
    if (after) process.stdout.write(`after\t${Buffer.from(JSON.stringify(after)).toString('base64url')}\n`);
  } while (after);
  for (const [outcome, count] of Object.entries(counts)) process.stdout.write(`${outcome}\t${count}\n`);
} finally {
  await storage?.close();
}
