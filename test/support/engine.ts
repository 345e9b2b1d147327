/**
 * vitest global setup: the DynamoDB Local engines the run's files share (lib/local/engine-pool.ts: a new
 * one after every few thousand writes), not one per file, which would start a JVM per file. Every file's
 * local service leases one and creates a table of its own on it (lib/local/storage.ts), so files stay
 * isolated by table name. The forked test workers inherit DYNAMODB_LOCAL_POOL from this process.
 *
 * It also records every AWS call the functions make (AWS_CALL_LOG_DIR, inherited by the workers and the
 * processes they start; each engine is reached through a recorder) and, after the last file, evaluates
 * them against the template's IAM (test/support/iam/check.ts): a denied call fails the test command.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { AWS_CALL_LOG_DIR } from '../../lib/local/aws-call-log.ts';
import { DYNAMODB_LOCAL_POOL, startEnginePool } from '../../lib/local/engine-pool.ts';
import { checkRecordedCalls } from './iam/check.ts';

/** Where the call log and the IAM report go (a run started by a test sets its own). */
const RESULTS = resolve(process.env.TEST_RESULTS_DIR ?? 'test-results');
const CALL_LOG = resolve(RESULTS, 'aws-calls');
const IAM_REPORT = resolve(RESULTS, 'iam-report.md');

export default async function setup(): Promise<() => Promise<void>> {
  rmSync(CALL_LOG, { recursive: true, force: true });
  process.env[AWS_CALL_LOG_DIR] = CALL_LOG;
  const pool = await startEnginePool(CALL_LOG);
  process.env[DYNAMODB_LOCAL_POOL] = pool.url;
  return async () => {
    const { engines, itemsWritten } = pool.summary();
    await pool.close();
    process.stdout.write(`dynamodb: ${itemsWritten} items written on ${engines} engines\n`);
    // vitest keeps a set exit code; a throw here would print as a crash of its own shutdown.
    if (!(await checkRecordedCalls(CALL_LOG, IAM_REPORT))) process.exitCode = 1;
  };
}
