/**
 * The metric log: every metric the functions emit in CloudWatch's embedded metric format (EMF), as
 * CloudWatch Logs would extract it from their output (namespace, name, dimensions), so the test command can
 * hold the dashboard and the alarms to what the functions emit (test/support/metrics). Only written when
 * METRIC_LOG_DIR names a directory (the test run sets it); then each process appends to a JSONL file of its
 * own, one line per distinct metric and function (distinct-lines.ts).
 *
 * From source the functions write their EMF lines on this process's stdout: `captureEmfLines` takes them out
 * of it (they would flood the test output) and records them. From their assets each writes to its log file
 * (bundles/function-process.ts), which `recordEmfLog` reads when the functions close.
 */
import { existsSync, readFileSync } from 'node:fs';
import { appendDistinctLine, readDistinctLines } from './distinct-lines.ts';

/** The environment variable naming the directory of the log; unset, nothing is recorded. */
export const METRIC_LOG_DIR = 'METRIC_LOG_DIR';

/** One metric as CloudWatch stores it: its dimensions are part of its identity. */
export interface EmittedMetric {
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
  /** The function that emitted it (its handler module), when known. */
  function?: string;
}

/** The directory metrics are recorded in, or undefined when recording is off. */
export const metricLogDir = (): string | undefined => process.env[METRIC_LOG_DIR] || undefined;

/** An EMF line starts with its metadata (functions/shared/metrics.ts writes `_aws` first, as Powertools does). */
const EMF_START = '{"_aws":';

interface EmfDocument {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [key: string]: unknown;
}

/** The metrics one EMF line records: each metric of each directive under each of its dimension sets. */
export function metricsOfEmfLine(line: string): EmittedMetric[] {
  const document = JSON.parse(line) as EmfDocument;
  return document._aws.CloudWatchMetrics.flatMap(({ Namespace, Dimensions, Metrics }) =>
    Dimensions.flatMap((set) =>
      Metrics.map(({ Name }) => ({
        namespace: Namespace,
        name: Name,
        dimensions: Object.fromEntries(set.map((dimension) => [dimension, String(document[dimension])])),
      })),
    ),
  );
}

/** Records the metrics of `line`, emitted by `emitter`, when recording is on. */
export function recordEmfLine(line: string, emitter: string | undefined, dir = metricLogDir()): void {
  if (dir === undefined) return;
  for (const metric of metricsOfEmfLine(line))
    appendDistinctLine(
      dir,
      'metrics',
      JSON.stringify(emitter === undefined ? metric : { ...metric, function: emitter }),
    );
}

/** Records every EMF line of a function's log file (its log group's stand-in), when recording is on. */
export function recordEmfLog(logFile: string, emitter: string): void {
  if (metricLogDir() === undefined || !existsSync(logFile)) return;
  for (const line of readFileSync(logFile, 'utf8').split('\n'))
    if (line.startsWith(EMF_START)) recordEmfLine(line, emitter);
}

const CAPTURED = Symbol.for('photo-commerce.emf-captured');

type Output = Pick<NodeJS.WriteStream, 'write'> & { [CAPTURED]?: true };

/**
 * From now on, EMF lines written on `output` (this process's stdout) are recorded with the function running
 * (`emitter`) and not written; every other write passes. Once per stream, and only when recording is on. A
 * line is one write (`emitMetrics` writes each whole).
 */
export function captureEmfLines(emitter: () => string | undefined, output: Output = process.stdout): void {
  if (metricLogDir() === undefined || output[CAPTURED]) return;
  output[CAPTURED] = true;
  const write = output.write.bind(output) as (...args: unknown[]) => boolean;
  output.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'string' || !chunk.startsWith(EMF_START)) return write(chunk, ...rest);
    for (const line of chunk.split('\n')) if (line !== '') recordEmfLine(line, emitter());
    const done = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
    done?.();
    return true;
  }) as Output['write'];
}

/** Every distinct metric recorded in `dir` by any process. */
export const readMetricLog = (dir: string): EmittedMetric[] => readDistinctLines<EmittedMetric>(dir);
