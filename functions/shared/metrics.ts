/**
 * The service's metrics in CloudWatch's embedded metric format (EMF): `emitMetrics` writes one JSON line on
 * stdout, which CloudWatch Logs turns into metrics in the service's namespace with one dimension, `service`
 * (what the dashboard and alarms read: lib/constructs/monitoring). Every metric is a sum, so a function
 * emits a change's counts when it commits, and a batch function its batch's counts once at the end.
 *
 * Written here instead of with Powertools Metrics: that keeps a per-invocation store whose every access
 * validates, merges dimension sets and metadata and looks up the environment (about 20 lookups for one
 * count), and on a write request that alone cost 0.035-0.08 ms of CPU in figure 2, the largest part of the
 * HTTP adapter (docs/performance.md). The line and the variables it honours are Powertools' own.
 */
import { METRICS_NAMESPACE, unitOf, type MetricName } from './metric-names.ts';
import { serviceName } from './powertools.ts';

const namespace = process.env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE;
/** Off locally (`npm start`, lib/local/service.ts): its stdout is not CloudWatch Logs. On in tests, which record them. */
const disabled = ['true', '1', 'yes', 'on', 'y'].includes(
  (process.env.POWERTOOLS_METRICS_DISABLED ?? '').trim().toLowerCase(),
);

export type MetricValues = Partial<Record<MetricName, number>>;

/** The EMF line (without its newline) that records `values` at `timestamp` (epoch ms). */
export function emfLine(values: MetricValues, timestamp: number): string {
  const names = Object.keys(values) as MetricName[];
  return JSON.stringify({
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: namespace,
          Dimensions: [['service']],
          Metrics: names.map((name) => ({ Name: name, Unit: unitOf(name) })),
        },
      ],
    },
    service: serviceName,
    ...values,
  });
}

/** Records `values` now. Zeros add nothing to a sum and are left out; no line when nothing is left (or metrics are off). */
export function emitMetrics(values: MetricValues): void {
  if (disabled) return;
  const counted = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== 0)) as MetricValues;
  if (Object.keys(counted).length > 0) process.stdout.write(`${emfLine(counted, Date.now())}\n`);
}
