/**
 * The emitted-metrics check of the test command (run by test/support/engine.ts after the last test file,
 * beside the IAM check): the metrics the functions emitted during the run (the metric log,
 * lib/local/metric-log.ts) against the metrics the synthesized template's widgets and alarms read. It fails
 * when a widget or an alarm reads a metric of the service's own namespace that no test emitted with the
 * same dimensions and no log metric filter produces (it would stay empty in AWS), and when a function emits
 * a metric no widget shows. The first needs the whole suite: on a subset of the files it is skipped.
 */
import { readMetricLog, type EmittedMetric } from '../../../lib/local/metric-log.ts';
import { sharedServiceStack } from '../../infra/stack.ts';
import { filteredMetrics, metricReads, type FilteredMetric, type MetricRead } from './metric-reads.ts';

export interface MetricFindings {
  /** Metrics of the service's own a widget or an alarm reads that nothing emitted or produces. */
  unemitted: MetricRead[];
  /** Metrics the functions emitted that no widget shows. */
  unshown: EmittedMetric[];
}

const isAws = (namespace: string) => namespace.startsWith('AWS/');
const sameDimensions = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
const emits = (emitted: EmittedMetric, read: MetricRead) =>
  emitted.namespace === read.namespace &&
  emitted.name === read.name &&
  sameDimensions(emitted.dimensions, read.dimensions);
const produces = (filtered: FilteredMetric, read: MetricRead) =>
  filtered.namespace === read.namespace &&
  filtered.name === read.name &&
  [...filtered.dimensionNames].sort().join() === Object.keys(read.dimensions).sort().join();

export function compareMetrics(
  reads: MetricRead[],
  filtered: FilteredMetric[],
  emitted: EmittedMetric[],
): MetricFindings {
  const custom = reads.filter((read) => !isAws(read.namespace));
  return {
    unemitted: custom.filter(
      (read) => !emitted.some((metric) => emits(metric, read)) && !filtered.some((filter) => produces(filter, read)),
    ),
    unshown: emitted.filter((metric) => !custom.some((read) => read.shown && emits(metric, read))),
  };
}

const metricText = ({ namespace, name, dimensions }: Pick<MetricRead, 'namespace' | 'name' | 'dimensions'>) =>
  `${namespace} ${name} {${Object.entries(dimensions)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ')}}`;

/** The lines a finding prints as, one per distinct metric (the readers, the emitting functions listed). */
export function findingLines(findings: MetricFindings): string[] {
  const grouped = <T>(items: T[], key: (item: T) => string, who: (item: T) => string | undefined) => {
    const groups = new Map<string, Set<string>>();
    for (const item of items) {
      const whom = groups.get(key(item)) ?? new Set();
      whom.add(who(item) ?? 'a test outside the local stack');
      groups.set(key(item), whom);
    }
    return [...groups].map(([metric, whom]) => `${metric} (${[...whom].sort().join('; ')})`);
  };
  return [
    ...grouped(findings.unemitted, metricText, (read) => read.reader).map(
      (line) => `metrics: READ BUT NEVER EMITTED ${line}`,
    ),
    ...grouped(findings.unshown, metricText, (metric) => metric.function).map(
      (line) => `metrics: EMITTED BUT SHOWN BY NO WIDGET ${line}`,
    ),
  ];
}

/** How many test files ran, and whether they were the whole suite, which the reads' check needs. */
export interface RunScope {
  ran: number;
  whole: boolean;
}

export function checkEmittedMetrics(logDir: string, scope: RunScope): boolean {
  const emitted = readMetricLog(logDir);
  const { whole } = scope;
  // Nothing emitted and no claim to be whole: no synthesis either.
  if (emitted.length === 0 && !whole) {
    process.stdout.write(`metrics: none emitted (${scope.ran} test files ran, not the whole suite)\n`);
    return true;
  }
  const { resources } = sharedServiceStack();
  const reads = metricReads(resources);
  const findings = compareMetrics(reads, filteredMetrics(resources), emitted);
  if (!whole) findings.unemitted = [];
  const lines = findingLines(findings);
  const out = lines.length > 0 ? process.stderr : process.stdout;
  const functions = new Set(emitted.map((metric) => metric.function)).size;
  const read = new Set(reads.filter((metric) => !isAws(metric.namespace)).map(metricText)).size;
  out.write(
    `metrics: ${new Set(emitted.map(metricText)).size} metrics emitted by ${functions} functions, ${read} of the service's read by widgets and alarms ${
      whole ? 'checked' : `not checked (${scope.ran} test files ran, not the whole suite)`
    }: ${lines.length} findings\n`,
  );
  for (const line of lines) out.write(`${line}\n`);
  return lines.length === 0;
}
