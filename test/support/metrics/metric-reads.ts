/**
 * What the synthesized template reads from CloudWatch: every metric an alarm or a dashboard widget reads
 * (each metric of a metric-math expression too), and every metric a log metric filter produces. References
 * in a dashboard's body (a function's name, a table's) are kept as tokens: the checks compare dimension
 * names, and values only where the template writes them out.
 */
import type { CfnResource } from '../../../lib/synthesized-templates.ts';

type Json = any;

export interface MetricRead {
  namespace: string;
  name: string;
  /** Dimension name to value; a value the template references (a resource's name) is a token, `@…@`. */
  dimensions: Record<string, string>;
  /** What reads it: `alarm <name>` or `widget "<title>"`. */
  reader: string;
  /** Whether a dashboard widget reads it (else an alarm). */
  shown: boolean;
}

/** A metric a log metric filter publishes: its dimension values come from the log events. */
export interface FilteredMetric {
  namespace: string;
  name: string;
  dimensionNames: string[];
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
/** A reference (`Ref`, `Fn::GetAtt`, ...) in a metric's dimension, written as a token. */
const valueOf = (value: unknown): string => (typeof value === 'string' ? value : `@${JSON.stringify(value)}@`);

/** An expression that reads metrics of its own (not through the query's other ids) is not understood here. */
function refuseSearch(expression: string, reader: string): void {
  if (/\bSEARCH\s*\(/.test(expression))
    throw new Error(`${reader}: a SEARCH expression, whose metrics this check cannot list: ${expression}`);
}

function alarmReads(alarm: Json): MetricRead[] {
  const properties = alarm.Properties;
  const reader = `alarm ${textOf(properties.AlarmName)}`;
  const dimensionsOf = (dimensions: { Name: string; Value: unknown }[] = []) =>
    Object.fromEntries(dimensions.map(({ Name, Value }) => [Name, valueOf(Value)]));
  const read = (metric: Json): MetricRead => ({
    namespace: metric.Namespace,
    name: metric.MetricName,
    dimensions: dimensionsOf(metric.Dimensions),
    reader,
    shown: false,
  });
  if (properties.MetricName !== undefined) return [read(properties)];
  return ((properties.Metrics ?? []) as Json[]).flatMap((query) => {
    if (query.Expression !== undefined) refuseSearch(query.Expression, reader);
    return query.MetricStat ? [read(query.MetricStat.Metric)] : [];
  });
}

/** A dashboard's body with every reference written as a `@n@` token, parsed. */
function dashboardBody(dashboard: Json): { widgets: Json[] } {
  const body = dashboard.Properties.DashboardBody;
  if (typeof body === 'string') return JSON.parse(body);
  const [, parts] = body['Fn::Join'] as [string, unknown[]];
  return JSON.parse(parts.map((part, index) => (typeof part === 'string' ? part : `@${index}@`)).join(''));
}

/**
 * The metrics of one widget: each entry of `metrics` is `[namespace, name, dimension, value, ..., options?]`,
 * or `[{ expression, id }]` for metric math, whose metrics are entries of their own (hidden).
 */
function widgetReads(widget: Json): MetricRead[] {
  const reader = `widget "${widget.properties?.title ?? widget.type}"`;
  return ((widget.properties?.metrics ?? []) as unknown[][]).flatMap((entry) => {
    const fields = entry.filter((field): field is string => typeof field === 'string');
    const options = entry.find((field) => typeof field === 'object') as { expression?: string } | undefined;
    if (options?.expression !== undefined) refuseSearch(options.expression, reader);
    if (fields.length === 0) return [];
    if (fields[0] === '.' || fields.length % 2 !== 0)
      throw new Error(`${reader}: a metric in a form this check does not read: ${JSON.stringify(entry)}`);
    const [namespace, name, ...pairs] = fields as [string, string, ...string[]];
    const dimensions = Object.fromEntries(
      Array.from({ length: pairs.length / 2 }, (_, index) => [pairs[2 * index], pairs[2 * index + 1]]),
    );
    return [{ namespace, name, dimensions, reader, shown: true }];
  });
}

/** Every metric the alarms and dashboards of `resources` read. */
export function metricReads(resources: Record<string, CfnResource>): MetricRead[] {
  return Object.values(resources).flatMap((resource) =>
    resource.Type === 'AWS::CloudWatch::Alarm'
      ? alarmReads(resource)
      : resource.Type === 'AWS::CloudWatch::Dashboard'
        ? dashboardBody(resource).widgets.flatMap(widgetReads)
        : [],
  );
}

/** Every metric the log metric filters of `resources` publish. */
export function filteredMetrics(resources: Record<string, CfnResource>): FilteredMetric[] {
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::Logs::MetricFilter')
    .flatMap((filter) =>
      (filter.Properties!.MetricTransformations as Json[]).map((transformation) => ({
        namespace: transformation.MetricNamespace,
        name: transformation.MetricName,
        dimensionNames: ((transformation.Dimensions ?? []) as { Key: string }[]).map(({ Key }) => Key),
      })),
    );
}
