/**
 * The webhook deliveries queue's consumer: one attempt per message (services/webhook-delivery-service.ts),
 * or one page of a resumed webhook's waiting deliveries queued (services/webhook-pause-service.ts).
 * A failed attempt that the schedule retries is sent anew as the next attempt, due after the schedule's delay
 * (webhooks/delivery-queue.ts), and its own message is done: retries wait delayed, never in flight, so a dead
 * receiver holds none of the queue's in-flight allowance that every other partner's deliveries need. A
 * message that arrives before it is due is sent on. Only an attempt that broke (storage, KMS) is reported
 * failed, for SQS to deliver again after the visibility timeout.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { DeliveriesQueueMessage } from '../contracts/webhook-queues.ts';
import { attemptDelivery } from '../services/webhook-delivery-service.ts';
import { withCorrelationId } from '../shared/correlation.ts';
import { requeueWaiting } from '../services/webhook-pause-service.ts';
import { logger } from '../shared/powertools.ts';
import { sendDeliveryMessageAt } from '../webhooks/delivery-queue.ts';

/** A message due within this long is attempted now rather than sent on. */
const EARLY_TOLERANCE_MS = 1_000;

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  logger.addContext(context);
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    const parsed = z.safeParse(DeliveriesQueueMessage, JSON.parse(record.body));
    if (!parsed.success) {
      logger.warn('message is not a webhook delivery; ignored', { messageId: record.messageId });
      continue;
    }
    const message = parsed.data;
    try {
      const now = Date.now();
      if (message.dueAt !== undefined && message.dueAt > now + EARLY_TOLERANCE_MS) {
        await sendDeliveryMessageAt(message, message.dueAt, now);
        continue;
      }
      if ('requeueUntil' in message) {
        await requeueWaiting(message, now);
        continue;
      }
      // A message sent before attempts were numbered in it counts its receives.
      const attempt = message.attempt ?? Number(record.attributes.ApproximateReceiveCount);
      // The request that caused the delivery (or asked for its redelivery): its id on the lines about it.
      const retryAfterSeconds = await withCorrelationId(message.correlationId, () =>
        attemptDelivery(message, attempt, record.messageId),
      );
      logger.info('webhook delivery handled', {
        correlation_id: message.correlationId,
        deliveryId: message.deliveryId,
        attempt,
        retryAfterSeconds,
      });
      if (retryAfterSeconds === undefined) continue;
      const settled = Date.now();
      await sendDeliveryMessageAt(
        { ...message, attempt: attempt + 1, previous: record.messageId },
        settled + retryAfterSeconds * 1000,
        settled,
      );
    } catch (error) {
      // The attempt itself broke (storage, KMS): the queue's visibility timeout brings it back.
      logger.error('webhook delivery broke; the message is delivered again', {
        webhookId: message.webhookId,
        ...('deliveryId' in message ? { deliveryId: message.deliveryId, correlation_id: message.correlationId } : {}),
        error: error as Error,
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
