/**
 * vitest global setup: the DynamoDB Local engines the run's files share (lib/local/engine-pool.ts: a new
 * one after every few thousand writes), not one per file, which would start a JVM per file. Every file's
 * local service leases one and creates a table of its own on it (lib/local/storage.ts), so files stay
 * isolated by table name. The forked test workers inherit DYNAMODB_LOCAL_POOL from this process.
 *
 * It also records every AWS call the functions make (AWS_CALL_LOG_DIR, inherited by the workers and the
 * processes they start; each engine is reached through a recorder) and, after the last file, evaluates
 * them against the template's IAM (test/support/iam/check.ts): a denied call fails the test command. So
 * too the metrics they emit (METRIC_LOG_DIR), against what the dashboard and alarms read
 * (test/support/metrics/check.ts).
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { AWS_CALL_LOG_DIR } from '../../lib/local/aws-call-log.ts';
import { DYNAMODB_LOCAL_POOL, startEnginePool } from '../../lib/local/engine-pool.ts';
import { METRIC_LOG_DIR } from '../../lib/local/metric-log.ts';
import { checkRecordedCalls } from './iam/check.ts';
import { checkEmittedMetrics } from './metrics/check.ts';
import { runScope } from './run-scope.ts';

/** Where the call and metric logs and the IAM report go (a run started by a test sets its own). */
const RESULTS = resolve(process.env.TEST_RESULTS_DIR ?? 'test-results');
const CALL_LOG = resolve(RESULTS, 'aws-calls');
const METRIC_LOG = resolve(RESULTS, 'metrics');
const IAM_REPORT = resolve(RESULTS, 'iam-report.md');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  rmSync(CALL_LOG, { recursive: true, force: true });
  rmSync(METRIC_LOG, { recursive: true, force: true });
  process.env[AWS_CALL_LOG_DIR] = CALL_LOG;
  process.env[METRIC_LOG_DIR] = METRIC_LOG;
  const pool = await startEnginePool(CALL_LOG);
  process.env[DYNAMODB_LOCAL_POOL] = pool.url;
  return async () => {
    const { engines, itemsWritten } = pool.summary();
    await pool.close();
    process.stdout.write(`dynamodb: ${itemsWritten} items written on ${engines} engines\n`);
    // vitest keeps a set exit code; a throw here would print as a crash of its own shutdown.
    if (!(await checkRecordedCalls(CALL_LOG, IAM_REPORT))) process.exitCode = 1;
    if (!checkEmittedMetrics(METRIC_LOG, await runScope(project))) process.exitCode = 1;
  };
}
