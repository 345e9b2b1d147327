/**
 * The webhook deliveries queue: one message per delivery (the fan-out, a redelivery), and a retry sent anew
 * with its delay. A retry never waits in flight (ChangeMessageVisibility would hold its message received for
 * hours, and a standard queue stops handing out messages at about 120,000 in flight: one dead receiver would
 * then silence every partner). SQS delays a message 15 minutes at most, so a longer wait is a chain of
 * delayed messages, each sent on when it arrives early, none in flight meanwhile.
 */
import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { DeliveriesQueueMessage, DeliveryMessage } from '../contracts/webhook-queues.ts';
import { sqs } from '../shared/clients/sqs.ts';
import { config } from '../shared/config.ts';
import { currentCorrelationId } from '../shared/correlation.ts';

/** SQS's most entries per SendMessageBatch. */
const BATCH = 10;
/**
 * The longest delay of one message: under SQS's 15 minutes, and under the queue-age alarm's 15 minutes
 * should SQS count a delayed message's wait in its age (lib/constructs/monitoring/alarms.ts).
 */
export const MAX_DELAY_SECONDS = 840;

/** A message's body: with the correlation id of the work sending it (a fan-out, a redelivery), unless it has one. */
const messageBody = (message: DeliveriesQueueMessage): string =>
  JSON.stringify({ correlationId: currentCorrelationId(), ...message } satisfies DeliveriesQueueMessage);

/** One message per delivery on the deliveries queue, ten per call. */
export async function sendDeliveryMessages(messages: readonly DeliveryMessage[]): Promise<void> {
  for (let start = 0; start < messages.length; start += BATCH) {
    const batch = messages.slice(start, start + BATCH);
    const result = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: config.webhookDeliveryQueueUrl,
        Entries: batch.map((message, index) => ({ Id: String(index), MessageBody: messageBody(message) })),
      }),
    );
    if ((result.Failed ?? []).length > 0)
      throw new Error(`SQS refused ${result.Failed?.length} delivery messages: ${result.Failed?.[0]?.Message}`);
  }
}

/** Sends `message` to be handled at `dueAt` (epoch ms): delayed up to MAX_DELAY_SECONDS, sent on from there. */
export async function sendDeliveryMessageAt(
  message: DeliveriesQueueMessage,
  dueAt: number,
  now: number,
): Promise<void> {
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((dueAt - now) / 1000)));
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: config.webhookDeliveryQueueUrl,
      MessageBody: messageBody({ ...message, dueAt }),
      DelaySeconds: delaySeconds,
    }),
  );
}
