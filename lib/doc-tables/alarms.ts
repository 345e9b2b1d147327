/**
 * docs/operations.md: every alarm of the stack as built, with its description (what the operator reads in
 * the notice). The per-route failure alarms are one row. Each alarm has a runbook entry, a heading of
 * docs/operations.md named after it; the table links there and fails to generate while one is missing.
 */
import { readFileSync } from 'node:fs';
import { Stack } from 'aws-cdk-lib';
import { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { routes } from '../../functions/routes.ts';
import { serviceStack } from './stack.ts';
import { table } from './markdown.ts';

const RUNBOOK = 'docs/operations.md';

/** The alarm's name without its stage prefix, a route's handler written `<handler>`. */
const kindOf = (name: string, prefix: string): string => {
  const id = name.slice(prefix.length);
  const route = routes.find((candidate) => id === `${candidate.handler}-failures`);
  return route ? '<handler>-failures' : id;
};

/** The GitHub anchor of a heading. */
const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');

/** A resolved description as text: a queue's name written out where the template joins it in. */
function rendered(stack: Stack, value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) throw new Error(`an alarm description the table cannot write: ${JSON.stringify(value)}`);
  return join[1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const [logicalId, attribute] = (part as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] ?? [];
      const queue = stack.node
        .findAll()
        .find((node): node is CfnQueue => node instanceof CfnQueue && stack.getLogicalId(node) === logicalId);
      if (attribute !== 'QueueName' || !queue?.queueName)
        throw new Error(`an alarm description names what the table cannot write: ${JSON.stringify(part)}`);
      return queue.queueName;
    })
    .join(join[0]);
}

export function alarmsTable(runbook = readFileSync(RUNBOOK, 'utf8')): string {
  const stack = serviceStack();
  const prefix = 'photo-commerce-dev-';
  const rows = new Map<string, { description: string; count: number }>();
  for (const alarm of stack.node.findAll().filter((node): node is CfnAlarm => node instanceof CfnAlarm)) {
    const name = Stack.of(alarm).resolve(alarm.alarmName) as string;
    const kind = kindOf(name, prefix);
    const text = rendered(stack, Stack.of(alarm).resolve(alarm.alarmDescription));
    const shown =
      kind === '<handler>-failures'
        ? 'one per route: an invocation crashed, timed out or was throttled (answers of 4xx/5xx JSON are not counted: the 5xx rate alarm sees those)'
        : text
            .replace(/ ?docs\/operations\.md, Alarms[^.]*\.?/, '')
            .replace(/photo-commerce-dev-/g, 'photo-commerce-<stage>-');
    rows.set(kind, { description: shown, count: (rows.get(kind)?.count ?? 0) + 1 });
  }
  const headings = runbook
    .split('\n')
    .filter((line) => line.startsWith('### '))
    .map((line) => line.slice(4));
  const headingOf = (kind: string) => headings.find((heading) => heading.includes(`\`${kind}\``));
  const missing = [...rows.keys()].filter((kind) => headingOf(kind) === undefined);
  if (missing.length > 0)
    throw new Error(`${RUNBOOK}: no runbook entry (a heading ### naming \`<alarm>\`) for ${missing.join(', ')}`);
  return table(
    ['alarm', 'fires when', 'runbook'],
    [...rows.entries()].map(([kind, { description }]) => [
      `\`photo-commerce-<stage>-${kind}\``,
      description,
      `[runbook](#${anchorOf(headingOf(kind)!)})`,
    ]),
  );
}
