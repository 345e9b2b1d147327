/**
 * The webhook deliveries queue's consumer: one attempt per message (services/webhook-delivery-service.ts).
 * A failed attempt that the schedule retries sets its message's visibility to the schedule's next delay
 * (ChangeMessageVisibility: SQS holds a message up to 12 hours, the schedule's longest delay is 10) and
 * reports it failed, so SQS delivers it again then, with the next ApproximateReceiveCount as its attempt.
 */
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { DeliveryMessage } from '../contracts/webhook-queues.ts';
import { attemptDelivery } from '../services/webhook-delivery-service.ts';
import { sqs } from '../shared/clients/sqs.ts';
import { config } from '../shared/config.ts';
import { logger } from '../shared/powertools.ts';

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  logger.addContext(context);
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    const parsed = z.safeParse(DeliveryMessage, JSON.parse(record.body));
    if (!parsed.success) {
      logger.warn('message is not a webhook delivery; ignored', { messageId: record.messageId });
      continue;
    }
    try {
      const retryAfterSeconds = await attemptDelivery(parsed.data, Number(record.attributes.ApproximateReceiveCount));
      if (retryAfterSeconds === undefined) continue;
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: config.webhookDeliveryQueueUrl,
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: retryAfterSeconds,
        }),
      );
      failures.push({ itemIdentifier: record.messageId });
    } catch (error) {
      // The attempt itself broke (storage, KMS): the queue's visibility timeout brings it back.
      logger.error('webhook delivery broke; the message is delivered again', {
        deliveryId: parsed.data.deliveryId,
        error: error as Error,
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
