/**
 * The IAM check of the test command (run by test/support/engine.ts after the last test file): every call
 * the functions made during the run, from the call log, evaluated against the synthesized template. Writes
 * test-results/iam-report.md, prints a one-line summary and each denied call; answers whether none was.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { readAwsCallLog } from '../../../lib/local/aws-call-log.ts';
import { sharedServiceStack } from '../../infra/stack.ts';
import { evaluateCalls } from './evaluate-calls.ts';
import { unexercisedGrants } from './grant-coverage.ts';
import { deniedLine, iamReport, summaryLine } from './report.ts';
import { scopeOfStack, templateAccess, type TemplateAccess } from './template-access.ts';

/** The service's template (root and nested stacks, not bundled) as what it lets each function do. */
export function serviceTemplateAccess(): TemplateAccess {
  const { stack, config } = sharedServiceStack();
  return templateAccess(scopeOfStack(stack), `photo-commerce-${config.stage}`);
}

export async function checkRecordedCalls(logDir: string, reportPath: string): Promise<boolean> {
  const calls = readAwsCallLog(logDir);
  // Nothing to evaluate (no function ran with credentials of its own): no synthesis either.
  if (calls.length === 0) {
    process.stdout.write(`\niam: no function calls recorded in ${relative(process.cwd(), logDir)}\n`);
    return true;
  }
  const access = serviceTemplateAccess();
  const verdicts = await evaluateCalls(calls, access);
  const unexercised = unexercisedGrants(access, verdicts);
  mkdirSync(dirname(reportPath), { recursive: true });
  writeFileSync(reportPath, iamReport(verdicts, unexercised));
  const denied = verdicts.filter((verdict) => !verdict.allowed);
  const out = denied.length > 0 ? process.stderr : process.stdout;
  out.write(`\n${summaryLine(verdicts, unexercised, relative(process.cwd(), reportPath))}\n`);
  for (const verdict of denied) out.write(`iam: DENIED ${deniedLine(verdict)}\n`);
  return denied.length === 0;
}
