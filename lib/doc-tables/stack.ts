/** docs/deploy.md and docs/security.md: the stack as built (functions, their grants, alarms), without bundling. */
import { App, Stack } from 'aws-cdk-lib';
import { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Policy } from 'aws-cdk-lib/aws-iam';
import { routes, type Route } from '../../functions/routes.ts';
import { HandlerFunction } from '../constructs/handler-function.ts';
import { ROUTELESS_FUNCTIONS } from '../constructs/routeless-functions.ts';
import { PLACEHOLDER_SETTINGS, readServiceConfig } from '../service-config.ts';
import { ServiceStack } from '../service-stack.ts';
import { table } from './markdown.ts';

let built: ServiceStack | undefined;
/** The service stack with its default settings, not synthesized and not bundled (no asset is built). */
export function serviceStack(): ServiceStack {
  if (built) return built;
  const app = new App({
    context: { 'aws:cdk:bundling-stacks': [], acknowledgedPlaceholders: PLACEHOLDER_SETTINGS.join(',') },
  });
  const config = readServiceConfig(app.node, {});
  built = new ServiceStack(app, `PhotoCommerce-${config.stage}`, { config });
  return built;
}

const handlerFunctions = (): HandlerFunction[] =>
  serviceStack()
    .node.findAll()
    .filter((node): node is HandlerFunction => node instanceof HandlerFunction);

const routeOf = (handler: string): Route | undefined => routes.find((route) => route.handler === handler);
/** What the documents call each function without a route (a new one fails the type check until named here). */
const ROUTELESS_LABELS: Record<keyof typeof ROUTELESS_FUNCTIONS, string> = {
  authorizer: 'the authorizer',
  renditions: 'the renditions function',
  sweeper: 'the library sweeper',
  publisher: 'the event publisher',
  webhookFanout: 'the webhook fan-out',
  webhookDeliver: 'the webhook delivery function',
};
const ROUTELESS_ROLES: Record<string, string> = Object.fromEntries(
  Object.entries(ROUTELESS_LABELS).map(([key, label]) => [
    ROUTELESS_FUNCTIONS[key as keyof typeof ROUTELESS_FUNCTIONS].handler,
    label,
  ]),
);
const functionLabel = (handler: string): string => {
  const route = routeOf(handler);
  return route ? `\`${route.method} ${route.path}\`` : (ROUTELESS_ROLES[handler] ?? `\`${handler}\``);
};

/** Rows whose other cells are equal are one row naming all their functions. */
function merged(rows: { label: string; cells: string[] }[]): string[][] {
  const byCells = new Map<string, string[]>();
  for (const row of rows) {
    const key = JSON.stringify(row.cells);
    byCells.set(key, [...(byCells.get(key) ?? []), row.label]);
  }
  return [...byCells.entries()].map(([key, labels]) => [labels.join(', '), ...(JSON.parse(key) as string[])]);
}

export function functionsTable(): string {
  const rows = handlerFunctions().map((handlerFunction) => {
    const cfn = handlerFunction.function.node.defaultChild as CfnFunction;
    return {
      label: functionLabel(handlerFunction.handlerName),
      cells: [`${cfn.memorySize} MB`, `${cfn.timeout} s`],
    };
  });
  const sizes = merged(rows).map(([labels, memory, timeout]) => [memory!, timeout!, labels!]);
  sizes.sort((a, b) => parseInt(a[0]!) - parseInt(b[0]!) || parseInt(a[1]!) - parseInt(b[1]!));
  return `${rows.length} functions, \`photo-commerce-<stage>-<handler>\`:\n\n${table(['memory', 'time-out', 'functions'], sizes)}`;
}

export type Statement = {
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
};
const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** `library/*` for a resource `arn...:bucket/library/*`, as the template builds it. */
function objectKeysOf(resource: unknown): string | undefined {
  const text = JSON.stringify(resource);
  const match = /"\/([^"]*)"\]\]\}$/.exec(text) ?? /"\/([^"]*\*)"/.exec(text);
  return match ? (match[1] as string) : undefined;
}

function statementsOf(handlerFunction: HandlerFunction): Statement[] {
  const policies = handlerFunction.role.node.children.filter((child): child is Policy => child instanceof Policy);
  const stack = Stack.of(handlerFunction);
  return policies.flatMap(
    (policy) => (stack.resolve(policy.document.toJSON()) as { Statement: Statement[] }).Statement ?? [],
  );
}

/** Each function's role statements, by the label the tables give it: what test/unit/doc-tables.test.ts holds the grants table to. */
export const roleStatements = (): Map<string, Statement[]> =>
  new Map(
    handlerFunctions().map((handlerFunction) => [
      functionLabel(handlerFunction.handlerName),
      statementsOf(handlerFunction),
    ]),
  );

const prefixesOf = (statement: Statement): string =>
  asList(statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string | string[])
    .map((prefix) => `\`${prefix.replace(/\*$/, '')}\``)
    .join(', ');

/** ` (UpdateItem only)` for a write statement of one action; a statement of several writes says nothing more. */
const onlyKind = (actions: string[]): string =>
  actions.length === 1 ? ` (${(actions[0] as string).replace('dynamodb:', '')} only)` : '';

/** One row per function: every statement of its role is in a cell (a role may hold several write statements). */
export function grantsTable(): string {
  const rows = handlerFunctions().map((handlerFunction) => {
    const reads: string[] = [];
    const writes: string[] = [];
    const objects: string[] = [];
    const other: string[] = [];
    for (const statement of statementsOf(handlerFunction)) {
      const actions = asList(statement.Action);
      if (actions.includes('dynamodb:GetRecords')) other.push("the table's stream");
      else if (!statement.Condition && actions.every((action) => action === 'dynamodb:ListStreams')) continue;
      else if (actions.some((action) => action.startsWith('dynamodb:'))) {
        if (actions.includes('dynamodb:GetItem')) reads.push(prefixesOf(statement));
        else writes.push(prefixesOf(statement) + onlyKind(actions));
      } else if (actions.some((action) => action.startsWith('s3:'))) {
        const names = actions.map((action) => action.replace('s3:', '')).join(', ');
        const keys = asList(statement.Resource).map(objectKeysOf);
        objects.push(
          keys.includes(undefined)
            ? `${names} on the bucket`
            : `${names} on ${keys.map((key) => `\`${key}\``).join(', ')}`,
        );
      } else if (actions.some((action) => action.startsWith('events:'))) other.push(`${actions.join(', ')} on the bus`);
      else if (actions.includes('sqs:ReceiveMessage')) other.push('receives from its queue');
      else if (actions.includes('sqs:SendMessage'))
        other.push(
          /DeadLetters/.test(JSON.stringify(statement.Resource))
            ? 'sends to its dead-letter queue'
            : 'sends to the webhook deliveries queue',
        );
      else if (actions.includes('kms:GenerateMac'))
        other.push("kms:GenerateMac with the artwork links' key (a day's signing key)");
      else if (actions.some((action) => action.startsWith('kms:')))
        other.push(`${actions.join(', ')} with the webhook secrets' key (a webhook id as encryption context)`);
    }
    return {
      label: functionLabel(handlerFunction.handlerName),
      cells: [reads.join('; ') || '—', writes.join('; ') || '—', [...objects, ...other].join('; ') || '—'],
    };
  });
  return table(['functions', 'table: read', 'table: write', 'objects and bus'], merged(rows));
}

export function alarmsSummary(): string {
  const alarms = serviceStack()
    .node.findAll()
    .filter((node): node is CfnAlarm => node instanceof CfnAlarm);
  /** The metrics an alarm reads: its one metric, or those its math expression names. */
  const metricsOf = (alarm: CfnAlarm): number =>
    alarm.metrics === undefined
      ? 1
      : (asList(alarm.metrics as unknown[]) as { metricStat?: unknown }[]).filter((query) => query.metricStat).length;
  const two = alarms.filter((alarm) => metricsOf(alarm) === 2).length;
  const metricCount = alarms.reduce((sum, alarm) => sum + metricsOf(alarm), 0);
  return (
    `The stack has **${alarms.length} alarms**, ${two} of them math alarms over two metrics. CloudWatch bills an ` +
    `alarm per metric it reads: ${metricCount} metrics in all, about ${(metricCount * 0.1).toFixed(2)} USD a month at 0.10 USD each.`
  );
}
