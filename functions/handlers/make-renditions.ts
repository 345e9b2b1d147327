/**
 * Queue consumer: each message is a `LibraryItemsAdded` event (the EventBridge envelope an SQS target
 * receives); the renditions of its items are made one after another (services/rendition-service.ts), so
 * the function holds one image at a time. A message whose items could not all be handled is reported
 * (ReportBatchItemFailures) and comes back after the visibility timeout; items decided meanwhile are
 * skipped then. Its last delivery (ApproximateReceiveCount = RENDITION_MAX_ATTEMPTS, the queue's
 * maxReceiveCount) records Failed instead of failing again; the dead-letter queue only receives messages
 * that failed even then.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { ItemsAddedEnvelope } from '../contracts/library-events.ts';
import { makeRenditions } from '../services/rendition-service.ts';
import { config } from '../shared/config.ts';
import { withCorrelationId } from '../shared/correlation.ts';
import { logger } from '../shared/powertools.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { METRIC } from '../shared/metric-names.ts';

export async function handler(event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  if (context) logger.addContext(context);
  const failures: { itemIdentifier: string }[] = [];
  const outcomes = { [METRIC.RenditionsReady]: 0, [METRIC.RenditionsFailed]: 0, [METRIC.RenditionsFailedByService]: 0 };
  try {
    for (const record of event.Records) {
      const parsed = z.safeParse(ItemsAddedEnvelope, JSON.parse(record.body));
      if (!parsed.success) {
        // Only this event type is routed here; one that does not parse is a bug to see, not to retry.
        logger.warn('message is not a LibraryItemsAdded event; ignored', { messageId: record.messageId });
        continue;
      }
      const finalAttempt = Number(record.attributes.ApproximateReceiveCount) >= config.renditionMaxAttempts;
      const { detail } = parsed.data;
      // The push's request: its id on this message's lines and on the renditions' outbox events.
      await withCorrelationId(detail.CorrelationId, async () => {
        try {
          for (const itemGuid of detail.ItemGuids) {
            const outcome = await makeRenditions(itemGuid, { finalAttempt });
            if (outcome === 'Ready') outcomes[METRIC.RenditionsReady]++;
            if (outcome === 'Failed') outcomes[METRIC.RenditionsFailed]++;
            if (outcome === 'FailedByService') outcomes[METRIC.RenditionsFailedByService]++;
            logger.info('renditions', { itemGuid, outcome });
          }
        } catch (error) {
          logger.warn('renditions not made; the message comes back', {
            messageId: record.messageId,
            eventId: detail.EventId,
            error: error as Error,
          });
          failures.push({ itemIdentifier: record.messageId });
        }
      });
    }
    return { batchItemFailures: failures };
  } finally {
    emitMetrics(outcomes);
  }
}
