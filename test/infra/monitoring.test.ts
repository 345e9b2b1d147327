/**
 * The monitoring as synthesized: metric math that evaluates over sparse series, Logs Insights widgets within
 * the log groups one query may read, and the dashboard's rows for the work done after the answer. One synth
 * for the whole file.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CfnElement } from 'aws-cdk-lib';
import { LOGS_INSIGHTS_MAX_LOG_GROUPS } from '../../lib/constructs/monitoring/dashboard.ts';
import { HandlerFunction } from '../../lib/constructs/handler-function.ts';
import type { ServiceStack } from '../../lib/service-stack.ts';
import { synthServiceStack } from './stack.ts';

type Json = any;
let stack: ServiceStack;
let resources: Record<string, Json>;

beforeAll(() => {
  ({ stack, resources } = synthServiceStack());
}, 120_000);

const ofType = (type: string): Json[] => Object.values(resources).filter((resource) => resource.Type === type);

/** A reference in the template, as one string: `@Ref:Id@`, `@Id.Attribute@`, or its function (`@Fn::Select@`). */
const tokenOf = (value: Json): string =>
  value.Ref !== undefined
    ? `@Ref:${value.Ref}@`
    : value['Fn::GetAtt'] !== undefined
      ? `@${(value['Fn::GetAtt'] as string[]).join('.')}@`
      : `@${Object.keys(value)[0]}@`;

/** The dashboard's widgets, its body's references written as tokens. */
function widgets(): Json[] {
  const body = ofType('AWS::CloudWatch::Dashboard')[0].Properties.DashboardBody;
  const [, parts] = body['Fn::Join'] as [string, Json[]];
  const text = parts.map((part) => (typeof part === 'string' ? part : tokenOf(part))).join('');
  return (JSON.parse(text) as { widgets: Json[] }).widgets;
}

/** The series of `ids` that `expression` reads outside FILL(id, value). */
const unfilled = (expression: string, ids: string[]): string[] => {
  const rest = expression.replace(/FILL\(\s*\w+\s*,\s*[\d.]+\s*\)/g, '');
  return ids.filter((id) => new RegExp(`\\b${id}\\b`).test(rest));
};

describe('metric math', () => {
  it("fills every series an alarm's expression reads, so a period with a datapoint in any of them evaluates", () => {
    const queries = ofType('AWS::CloudWatch::Alarm').map((alarm) => (alarm.Properties.Metrics ?? []) as Json[]);
    const withMath = queries.filter((metrics) => metrics.some((query) => query.Expression));
    expect(withMath.length).toBeGreaterThan(0);
    for (const metrics of withMath) {
      const ids = metrics.filter((query) => query.MetricStat).map((query) => query.Id as string);
      for (const { Expression } of metrics.filter((query) => query.Expression))
        expect(unfilled(Expression, ids), Expression).toEqual([]);
    }
    const throttles = ofType('AWS::CloudWatch::Alarm').find((alarm) =>
      alarm.Properties.AlarmName.endsWith('table-throttles'),
    );
    expect(throttles.Properties.Metrics[0].Expression).toBe('FILL(reads, 0) + FILL(writes, 0)');
  });

  it("fills every series a dashboard expression reads, the table's system errors among them", () => {
    const expressions: string[] = [];
    for (const widget of widgets()) {
      const options = ((widget.properties.metrics ?? []) as Json[][]).map((metric) => metric.at(-1) ?? {});
      const ids = options.filter((option) => option.id && !option.expression).map((option) => option.id as string);
      for (const { expression } of options.filter((option) => option.expression)) {
        expressions.push(expression);
        expect(unfilled(expression, ids), expression).toEqual([]);
      }
    }
    const systemErrors = expressions.find((expression) => expression.includes('getItem'));
    expect(systemErrors).toContain('FILL(getRecords, 0)');
    expect(expressions.some((expression) => expression.includes('FILL(byService, 0)'))).toBe(true);
  });
});

describe('cold starts', () => {
  it(`query at most ${LOGS_INSIGHTS_MAX_LOG_GROUPS} log groups each, and together every function's once per view`, () => {
    const queries = widgets().filter((widget) => widget.type === 'log');
    const sourcesOf = (widget: Json): string[] =>
      [...(widget.properties.query as string).matchAll(/SOURCE '([^']+)'/g)].map((match) => match[1]!);
    for (const query of queries) expect(sourcesOf(query).length).toBeLessThanOrEqual(LOGS_INSIGHTS_MAX_LOG_GROUPS);
    const functions = stack.node.findAll().filter((node) => node instanceof HandlerFunction);
    for (const view of ['Cold starts per function', 'Cold starts over time']) {
      const sources = queries.filter((query) => query.properties.title.startsWith(view)).flatMap(sourcesOf);
      expect(sources, view).toHaveLength(functions.length);
      expect(new Set(sources).size, view).toBe(functions.length);
    }
  });
});

describe('the webhooks row', () => {
  it('shows deliveries waiting and between attempts, the fan-out queue age, both dead letters and errors', () => {
    const webhookWidgets = widgets().filter((widget) => (widget.properties.title ?? '').startsWith('Webhooks:'));
    const text = JSON.stringify(webhookWidgets);
    for (const metric of [
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesNotVisible',
      'ApproximateAgeOfOldestMessage',
    ])
      expect(text).toContain(metric);
    const { fanout, deliveries } = stack.webhooks;
    for (const queue of [fanout.queue, fanout.deadLetters, deliveries.queue, deliveries.deadLetters])
      expect(text).toContain(`@${stack.getLogicalId(queue.node.defaultChild as CfnElement)}.QueueName@`);
    for (const { handlerFunction } of [fanout, deliveries])
      expect(text).toContain(`@Ref:${stack.getLogicalId(handlerFunction.function.node.defaultChild as CfnElement)}@`);
  });
});

describe('alarms on failures users feel', () => {
  const alarmNamed = (name: string): Json =>
    ofType('AWS::CloudWatch::Alarm').find((alarm) => alarm.Properties.AlarmName === `photo-commerce-dev-${name}`)
      ?.Properties;

  it("alarms on the authorizer's crashes from the gateway's side, not on its refusals", () => {
    const crashes = alarmNamed('authorizer-crashes');
    const reads = JSON.stringify(crashes.Metrics);
    for (const type of ['AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR']) expect(reads).toContain(type);
    expect(reads).not.toContain('UNAUTHORIZED');
    expect(crashes).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    expect(JSON.stringify(alarmNamed('identity-keys-unreachable').Metrics)).toContain('IdentityKeysUnreachable');
  });

  it("alarms on DynamoDB's system errors and on the age of each queue's oldest message", () => {
    expect(JSON.stringify(alarmNamed('table-system-errors').Metrics)).toContain('"MetricName":"SystemErrors"');
    for (const queue of ['renditions', 'webhook-fanout', 'webhook-deliveries'])
      expect(alarmNamed(`${queue}-queue-age`)).toMatchObject({
        MetricName: 'ApproximateAgeOfOldestMessage',
        Threshold: 900,
      });
  });

  it('alarms on renditions Failed by the service at once, and on webhook attempts failing across partners', () => {
    expect(alarmNamed('renditions-failed-by-service')).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    expect(JSON.stringify(alarmNamed('renditions-failed-by-service').Metrics)).toContain('RenditionsFailedByService');
    const widely = JSON.stringify(alarmNamed('webhook-attempts-failing-widely').Metrics);
    for (const name of ['WebhookAttemptsFailed', 'WebhookAttemptsDelivered', 'WebhooksStartedFailing'])
      expect(widely).toContain(name);
  });
});
