/**
 * The dashboard's rows for the work done after the answer: the table stream's consumers, renditions and
 * webhooks, each with what it did, what it could not do (dead letters) and how far behind it is.
 */
import { GraphWidget, MathExpression, type Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { METRIC, RENDITION_COUNTS, WEBHOOK_COUNTS } from '../../../functions/shared/metric-names.ts';
import type { ConsumedQueue } from '../queue-consumer.ts';
import { business, FIVE_MINUTES, type Watched } from './metrics.ts';

const wide = { width: 12, height: 6 };
const third = { width: 8, height: 6 };

const deadLettersOf = (consumed: ConsumedQueue, label = 'dead letters') =>
  consumed.deadLetters.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label });
const oldestMessageOf = (consumed: ConsumedQueue, label = 'oldest message') =>
  consumed.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum', label });

export function addPipelineRows(dashboard: Dashboard, watched: Watched): void {
  for (const consumer of watched.streamConsumers) {
    const { title, counts, counted } = consumer.monitoring;
    dashboard.addWidgets(
      new GraphWidget({
        title: `${title}: ${counted}, and dead letters`,
        left: counts.map(business),
        right: [consumer.metricDeadLetters(FIVE_MINUTES).with({ label: 'dead letters' })],
        ...wide,
      }),
      new GraphWidget({
        title: `${title}: stream iterator age (ms) and errors`,
        left: [consumer.metricIteratorAge(FIVE_MINUTES).with({ label: 'iterator age max' })],
        right: [consumer.handlerFunction.function.metricErrors({ period: FIVE_MINUTES, label: 'errors' })],
        ...wide,
      }),
    );
  }
  const { renditions, webhooks } = watched;
  dashboard.addWidgets(
    new GraphWidget({
      title: "Renditions: Ready, Failed (the image's fault), Failed by the service; dead letters",
      left: RENDITION_COUNTS.map(business),
      right: [deadLettersOf(renditions)],
      ...third,
    }),
    new GraphWidget({
      title: 'Renditions: share of images that cannot give renditions (%)',
      left: [
        new MathExpression({
          expression: '100 * FILL(failed, 0) / (FILL(ready, 0) + FILL(failed, 0) + FILL(byService, 0))',
          usingMetrics: {
            ready: business(METRIC.RenditionsReady),
            failed: business(METRIC.RenditionsFailed),
            byService: business(METRIC.RenditionsFailedByService),
          },
          label: "Failed, the image's fault (%)",
          period: FIVE_MINUTES,
        }),
      ],
      ...third,
    }),
    new GraphWidget({
      title: 'Renditions: queue age (s), duration p99 (ms)',
      left: [oldestMessageOf(renditions)],
      right: [
        renditions.handlerFunction.function.metricDuration({ period: FIVE_MINUTES, statistic: 'p99', label: 'p99 ms' }),
      ],
      ...third,
    }),
  );
  const { fanout, deliveries } = webhooks;
  dashboard.addWidgets(
    new GraphWidget({
      title:
        'Webhooks: attempts by outcome, partners starting to fail, deliveries Failed, webhooks disabled, paused, resumed',
      left: WEBHOOK_COUNTS.map(business),
      ...third,
    }),
    new GraphWidget({
      title:
        'Webhooks: deliveries due (visible), retries waiting (delayed), attempts under way (in flight); dead letters',
      left: [
        deliveries.queue.metricApproximateNumberOfMessagesVisible({
          period: FIVE_MINUTES,
          statistic: 'Maximum',
          label: 'deliveries due',
        }),
        deliveries.queue.metricApproximateNumberOfMessagesDelayed({
          period: FIVE_MINUTES,
          statistic: 'Maximum',
          label: 'retries waiting',
        }),
        deliveries.queue.metricApproximateNumberOfMessagesNotVisible({
          period: FIVE_MINUTES,
          statistic: 'Maximum',
          label: 'attempts under way',
        }),
      ],
      right: [deadLettersOf(fanout, 'fan-out dead letters'), deadLettersOf(deliveries, 'delivery dead letters')],
      ...third,
    }),
    new GraphWidget({
      title: 'Webhooks: fan-out queue age (s); function errors',
      left: [oldestMessageOf(fanout, 'fan-out oldest message')],
      right: [fanout, deliveries].map((consumed) =>
        consumed.handlerFunction.function.metricErrors({
          period: FIVE_MINUTES,
          label: `${consumed.handlerFunction.handlerName} errors`,
        }),
      ),
      ...third,
    }),
  );
}
