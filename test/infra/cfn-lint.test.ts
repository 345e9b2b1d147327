/**
 * cfn-lint (AWS's CloudFormation linter) over the synthesized templates, the root's and each nested one's:
 * no error, and no warning but the ones listed below with their reason. cfn-lint is a Python tool (`pip install cfn-lint`; this machine
 * image ships it); where it is missing the test says how to install it, and under CI=true it fails.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { synthServiceStack } from './stack.ts';

const run = promisify(execFile);

/** Warnings accepted on purpose, by rule id. */
const ACCEPTED_WARNINGS: Record<string, string> = {
  W3005:
    'CDK adds DependsOn from each function to its role policy so that the policy exists before the function can be invoked; cfn-lint sees the GetAtt of the role and calls the DependsOn redundant, but the policy is a separate resource.',
};

interface Finding {
  Filename: string;
  Level: string;
  Rule: { Id: string };
  Message: string;
  Location: { Path: (string | number)[] };
}

async function cfnLintVersion(): Promise<string | undefined> {
  try {
    return (await run('cfn-lint', ['--version'])).stdout.trim();
  } catch {
    return undefined;
  }
}

const version = await cfnLintVersion();
const installHint =
  'cfn-lint is not installed: `pip install cfn-lint` (or `pipx install cfn-lint`), then run the tests again.';
const dir = mkdtempSync(join(tmpdir(), 'cfn-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cfn-lint over the synthesized templates', () => {
  if (version === undefined) {
    if (process.env.CI === 'true') it('is installed (required under CI=true)', () => expect.fail(installHint));
    else it.skip(installHint, () => {});
    return;
  }

  it(`reports no error and no unexplained warning in the root or a nested template (${version})`, async () => {
    const { outdir, templates } = synthServiceStack({ outdir: dir });
    expect(templates.length).toBeGreaterThan(1);
    const files = templates.map(({ file }) => join(outdir, file));
    // cfn-lint exits non-zero whenever it reports anything; the JSON report is what is judged.
    const output = await run('cfn-lint', ['--format', 'json', ...files], { maxBuffer: 64 * 1024 * 1024 }).then(
      (result) => result.stdout,
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    const findings = JSON.parse(output || '[]') as Finding[];
    const unexplained = findings
      .filter(
        (finding) =>
          finding.Level === 'Error' || (finding.Level === 'Warning' && !(finding.Rule.Id in ACCEPTED_WARNINGS)),
      )
      .map(
        (finding) => `${finding.Rule.Id} ${finding.Filename} ${finding.Location.Path.join('/')}: ${finding.Message}`,
      );
    expect(unexplained).toEqual([]);
  }, 300_000);
});
