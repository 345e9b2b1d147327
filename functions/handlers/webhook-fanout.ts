/**
 * The webhook fan-out queue's consumer: each message is the EventBridge envelope of a subscribable event (an
 * EventBridge rule routes them here), turned into one delivery per receiving webhook
 * (services/webhook-fanout-service.ts). A message that fails is reported (ReportBatchItemFailures) and
 * delivered again; its deliveries are found again, not made twice.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { WebhookEventEnvelope } from '../contracts/webhook-queues.ts';
import { fanOut } from '../services/webhook-fanout-service.ts';
import { withCorrelationId } from '../shared/correlation.ts';
import { logger } from '../shared/powertools.ts';

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  logger.addContext(context);
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    const parsed = z.safeParse(WebhookEventEnvelope, JSON.parse(record.body));
    if (!parsed.success) {
      logger.warn('message is not a subscribable event; ignored', { messageId: record.messageId });
      continue;
    }
    const { detail } = parsed.data;
    // The request that caused the event: its id on the lines about it and on the delivery messages sent.
    const correlation = { correlation_id: detail.CorrelationId, eventId: detail.EventId };
    try {
      const deliveries = await withCorrelationId(detail.CorrelationId, () =>
        fanOut({ type: parsed.data['detail-type'], id: detail.EventId, time: Date.parse(parsed.data.time), detail }),
      );
      // Most events have no subscriber: that is no news at INFO, where it would be a line per event.
      if (deliveries > 0) logger.info('event fanned out', { ...correlation, deliveries });
      else logger.debug('event fanned out to no webhook', correlation);
    } catch (error) {
      logger.error('fan-out failed; the message is delivered again', {
        ...correlation,
        error: error as Error,
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
