/**
 * A paused webhook's waiting list: one small item per delivery that waits for it to resume, sharded as its
 * delivery log is (keys.ts), kept as long as the log keeps the delivery. Resuming reads it oldest first a
 * page at a time (sharded-listing.ts), queues the page and deletes it, so the deliveries go out in the
 * order they were made and no invocation handles more than a page.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { currentCorrelationId } from '../shared/correlation.ts';
import { DELIVERY_SHARDS, WAITING_PREFIX, webhookWaitingKey, webhookWaitingPk } from './keys.ts';
import { shardedPage } from './sharded-listing.ts';
import { fromItem, toItem } from './table.ts';
import { deliveryExpiry } from './webhook-delivery-store.ts';

export interface WaitingDelivery {
  webhookId: string;
  deliveryId: string;
  /** The request id of the work that made the delivery wait, which its attempts log once it is queued again. */
  correlationId?: string;
}

/** Puts the delivery on its webhook's waiting list (again: a put of the same item is one). */
export async function addWaiting(delivery: WaitingDelivery & { createdAt: number }): Promise<void> {
  const correlationId = currentCorrelationId();
  await dynamo.send(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(
        webhookWaitingKey(delivery.webhookId, delivery.deliveryId),
        'WebhookWaitingDelivery',
        {
          webhookId: delivery.webhookId,
          deliveryId: delivery.deliveryId,
          ...(correlationId === undefined ? {} : { correlationId }),
        },
        deliveryExpiry(delivery.createdAt),
      ),
    }),
  );
}

/** The oldest `limit` waiting deliveries of the webhook, and whether more wait. */
export async function oldestWaiting(
  webhookId: string,
  limit: number,
): Promise<{ waiting: WaitingDelivery[]; more: boolean }> {
  const { items, nextCursor } = await shardedPage(
    { basePk: webhookWaitingPk(webhookId), shards: DELIVERY_SHARDS, sortKeyPrefix: WAITING_PREFIX, newestFirst: false },
    { limit },
  );
  return { waiting: items.map((item) => fromItem<WaitingDelivery>(item)), more: nextCursor !== undefined };
}

/** Takes the deliveries off the waiting list, once they are queued. */
export async function removeWaiting(webhookId: string, deliveryIds: readonly string[]): Promise<void> {
  await Promise.all(
    deliveryIds.map((deliveryId) =>
      dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: webhookWaitingKey(webhookId, deliveryId) })),
    ),
  );
}
