/**
 * The checks after the last file fail the test command: a run (the real global setup, test/support/engine.ts)
 * in which a function made a call the template denies and emitted a metric no widget shows exits non-zero
 * though every test passed, prints the call with the reason and the metric, and writes the IAM report. Only
 * two of the suite's files ran: the reads of the dashboard and alarms are not held to what was emitted.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const results = mkdtempSync(join(tmpdir(), 'teardown-checks-'));
afterAll(() => rmSync(results, { recursive: true, force: true }));

it('exits non-zero and names the denied call and the unshown metric', async () => {
  const run = await promisify(execFile)(
    process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/teardown-checks/vitest.config.ts'],
    {
      cwd: new URL('../../', import.meta.url).pathname,
      env: { ...process.env, TEST_RESULTS_DIR: results, NO_COLOR: '1' },
    },
  ).then(
    () => ({ code: 0, stderr: '' }),
    (failure: { code: number; stderr: string }) => failure,
  );
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/iam: 1 distinct calls of 1 functions evaluated against the template, 1 denied/);
  expect(run.stderr).toMatch(
    /iam: DENIED get-library-item: s3:GetObject on arn:aws:s3:::\S+\/uploads\/item \(.*\): no Allow statement of the role's policies/,
  );
  expect(readFileSync(join(results, 'iam-report.md'), 'utf8')).toContain('## Denied calls (1)');
  expect(run.stderr).toMatch(
    /metrics: 1 metrics emitted by 1 functions, \d+ of the service's read by widgets and alarms not checked \(2 test files ran, not the whole suite\)/,
  );
  expect(run.stderr).toContain(
    'metrics: EMITTED BUT SHOWN BY NO WIDGET PhotoCommerce Unshown {service=photo-commerce} (create-basket)',
  );
}, 300_000);
