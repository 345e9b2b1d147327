/**
 * The IAM report of a test run (Markdown): the denied calls first, with why, then every call evaluated and
 * every grant no call exercised; and the one-line summary the test command prints.
 */
import type { CallVerdict } from './evaluate-calls.ts';
import type { Grant } from './grant-coverage.ts';

const contextText = (context: CallVerdict['context']) =>
  Object.entries(context)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? `[${value.join(', ')}]` : value}`)
    .join(' ');

/** One line naming a denied call: function, action, resource, context and the statement missing. */
export const deniedLine = (verdict: CallVerdict): string =>
  `${verdict.handler}: ${verdict.action} on ${verdict.resource} (${contextText(verdict.context)}; via ${verdict.via}): ${verdict.reason}`;

export function summaryLine(verdicts: CallVerdict[], unexercised: Grant[], reportPath: string): string {
  const denied = verdicts.filter((verdict) => !verdict.allowed).length;
  const functions = new Set(verdicts.map((verdict) => verdict.handler)).size;
  return `iam: ${verdicts.length} distinct calls of ${functions} functions evaluated against the template, ${denied} denied, ${unexercised.length} grants not exercised (${reportPath})`;
}

export function iamReport(verdicts: CallVerdict[], unexercised: Grant[]): string {
  const denied = verdicts.filter((verdict) => !verdict.allowed);
  const byFunction = [...verdicts].sort(
    (a, b) =>
      a.handler.localeCompare(b.handler) || a.action.localeCompare(b.action) || a.resource.localeCompare(b.resource),
  );
  return [
    '# IAM: recorded calls against the synthesized template',
    '',
    `## Denied calls (${denied.length})`,
    '',
    ...(denied.length > 0 ? denied.map((verdict) => `- ${deniedLine(verdict)}`) : ['None.']),
    '',
    `## Grants no call exercised (${unexercised.length})`,
    '',
    '| function | policy statement | action | resource |',
    '|---|---|---|---|',
    ...unexercised.map(
      (grant) => `| ${grant.handler} | ${grant.policy} #${grant.statement} | ${grant.action} | ${grant.resource} |`,
    ),
    '',
    `## Calls evaluated (${verdicts.length})`,
    '',
    '| function | action | resource | context | via | verdict |',
    '|---|---|---|---|---|---|',
    ...byFunction.map(
      (verdict) =>
        `| ${verdict.handler} | ${verdict.action} | ${verdict.resource} | ${contextText(verdict.context)} | ${verdict.via} | ${verdict.allowed ? 'allowed' : 'DENIED'} |`,
    ),
    '',
  ].join('\n');
}
