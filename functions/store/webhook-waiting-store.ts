/**
 * A paused webhook's waiting list: one small item per delivery that waits for it to resume, sharded as its
 * delivery log is (keys.ts), kept as long as the log keeps the delivery. Resuming reads it oldest first a
 * page at a time (sharded-listing.ts), queues the page and deletes it, so the deliveries go out in the
 * order they were made and no invocation handles more than a page.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { DELIVERY_SHARDS, WAITING_PREFIX, webhookWaitingKey, webhookWaitingPk } from './keys.ts';
import { shardedPage } from './sharded-listing.ts';
import { fromItem, toItem } from './table.ts';
import { deliveryExpiry } from './webhook-delivery-store.ts';

interface WaitingDelivery {
  webhookId: string;
  deliveryId: string;
}

/** Puts the delivery on its webhook's waiting list (again: a put of the same item is one). */
export async function addWaiting(delivery: WaitingDelivery & { createdAt: number }): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(
        webhookWaitingKey(delivery.webhookId, delivery.deliveryId),
        'WebhookWaitingDelivery',
        { webhookId: delivery.webhookId, deliveryId: delivery.deliveryId },
        deliveryExpiry(delivery.createdAt),
      ),
    }),
  );
}

/** The oldest `limit` waiting deliveries of the webhook (ids), and whether more wait. */
export async function oldestWaiting(
  webhookId: string,
  limit: number,
): Promise<{ deliveryIds: string[]; more: boolean }> {
  const { items, nextCursor } = await shardedPage(
    { basePk: webhookWaitingPk(webhookId), shards: DELIVERY_SHARDS, sortKeyPrefix: WAITING_PREFIX, newestFirst: false },
    { limit },
  );
  return {
    deliveryIds: items.map((item) => fromItem<WaitingDelivery>(item).deliveryId),
    more: nextCursor !== undefined,
  };
}

/** Takes the deliveries off the waiting list, once they are queued. */
export async function removeWaiting(webhookId: string, deliveryIds: readonly string[]): Promise<void> {
  await Promise.all(
    deliveryIds.map((deliveryId) =>
      dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: webhookWaitingKey(webhookId, deliveryId) })),
    ),
  );
}
