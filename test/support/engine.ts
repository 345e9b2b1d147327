/**
 * vitest global setup: one DynamoDB Local for the whole test run, not one per file. Every file's local
 * service then creates a table of its own on it (lib/local/storage.ts), so files stay isolated by table
 * name. The forked test workers inherit DYNAMODB_LOCAL_ENDPOINT from this process.
 *
 * It also records every AWS call the functions make (AWS_CALL_LOG_DIR, inherited by the workers and the
 * processes they start; the engine is reached through the recorder) and, after the last file, evaluates
 * them against the template's IAM (test/support/iam/check.ts): a denied call fails the test command.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { AWS_CALL_LOG_DIR } from '../../lib/local/aws-call-log.ts';
import { startDynamoDbLocal } from '../../lib/local/dynamodb-local.ts';
import { startDynamoDbRecorder } from '../../lib/local/dynamodb-recorder.ts';
import { checkRecordedCalls } from './iam/check.ts';

/** Where the call log and the IAM report go (a run started by a test sets its own). */
const RESULTS = resolve(process.env.TEST_RESULTS_DIR ?? 'test-results');
const CALL_LOG = resolve(RESULTS, 'aws-calls');
const IAM_REPORT = resolve(RESULTS, 'iam-report.md');

export default async function setup(): Promise<() => Promise<void>> {
  rmSync(CALL_LOG, { recursive: true, force: true });
  process.env[AWS_CALL_LOG_DIR] = CALL_LOG;
  const engine = await startDynamoDbLocal();
  const recorder = await startDynamoDbRecorder(engine.endpoint, CALL_LOG);
  process.env.DYNAMODB_LOCAL_ENDPOINT = recorder.endpoint;
  return async () => {
    await recorder.close();
    await engine.close();
    // vitest keeps a set exit code; a throw here would print as a crash of its own shutdown.
    if (!(await checkRecordedCalls(CALL_LOG, IAM_REPORT))) process.exitCode = 1;
  };
}
