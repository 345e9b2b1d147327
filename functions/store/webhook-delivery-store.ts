/**
 * The one place that reads and writes webhook deliveries (domain/webhook-delivery.ts): one item per event
 * and webhook in one of the webhook's DELIVERY_SHARDS partitions (keys.ts), keyed by the time-ordered
 * delivery id, kept DELIVERY_LOG_DAYS; the log lists them merged, newest first (sharded-listing.ts).
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import {
  REDELIVERY_INTERVAL_MS,
  withAttempt,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryState,
} from '../domain/webhook-delivery.ts';
import { DELIVERY_PREFIX, DELIVERY_SHARDS, webhookDeliveryKey, webhookDeliveryPk } from './keys.ts';
import type { PageRequest } from './query.ts';
import { shardedPage } from './sharded-listing.ts';
import { fromItem, toItem, type TableKey } from './table.ts';
import { writeIf } from './writes.ts';

/** How long the log keeps a delivery: past the longest retry schedule, long enough to look into a partner's failures. */
const DELIVERY_LOG_DAYS = 30;
/** When the log lets a delivery made at `createdAt` go (DynamoDB's TTL). */
export const deliveryExpiry = (createdAt: number) => createdAt + DELIVERY_LOG_DAYS * 24 * 60 * 60 * 1000;

/** Stores a new delivery; false when that event's delivery to that webhook exists already (a repeated fan-out). */
export const createDelivery = (delivery: Delivery): Promise<boolean> =>
  writeIf(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(
        webhookDeliveryKey(delivery.webhookId, delivery.deliveryId),
        'WebhookDelivery',
        delivery,
        deliveryExpiry(delivery.createdAt),
      ),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );

const readItem = async (Key: TableKey) =>
  (await dynamo.send(new GetCommand({ TableName: config.tableName, Key, ConsistentRead: true }))).Item;

/** The delivery, where its id puts it or, missing there, in the log's first partition (Delivery.inFirstShard). */
export async function getDelivery(webhookId: string, deliveryId: string): Promise<Delivery | undefined> {
  const key = webhookDeliveryKey(webhookId, deliveryId);
  const item = await readItem(key);
  if (item) return fromItem<Delivery>(item);
  if (key.PK === webhookDeliveryPk(webhookId)) return undefined;
  const unsharded = await readItem({ ...key, PK: webhookDeliveryPk(webhookId) });
  return unsharded ? { ...fromItem<Delivery>(unsharded), inFirstShard: true } : undefined;
}

/** Where the delivery as read is stored. */
const keyOf = (delivery: Delivery): TableKey => {
  const key = webhookDeliveryKey(delivery.webhookId, delivery.deliveryId);
  return delivery.inFirstShard ? { ...key, PK: webhookDeliveryPk(delivery.webhookId) } : key;
};

/**
 * Records an attempt made by queue message `messageId` and the state it led to, keeping the latest
 * KEPT_ATTEMPTS; false when another attempt was recorded since `delivery` was read (two messages of one
 * attempt: the later one ends its chain, so repeats never run two schedules side by side).
 */
export function recordAttempt(
  delivery: Delivery,
  state: DeliveryState,
  attempt: DeliveryAttempt,
  messageId: string,
): Promise<boolean> {
  const { attempts, attemptCount } = withAttempt(delivery, attempt);
  return writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keyOf(delivery),
      UpdateExpression:
        'SET attempts = :attempts, attemptCount = :count, attemptMessageId = :message, #state = :state REMOVE notSentReason',
      ConditionExpression:
        delivery.attemptCount === undefined
          ? 'attribute_not_exists(attemptCount) AND size(attempts) = :before'
          : 'attemptCount = :before',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':attempts': attempts,
        ':count': attemptCount,
        ':message': messageId,
        ':state': state,
        ':before': attemptCount - 1,
      },
    }),
  );
}

/**
 * Records that the delivery's message was not sent, saying why: it ends Failed (its webhook disabled, its key
 * revoked), or waits Paused for its webhook to resume (on the waiting list: webhook-waiting-store.ts).
 */
export async function settleUnsent(delivery: Delivery, state: 'Failed' | 'Paused', reason: string): Promise<void> {
  await dynamo.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keyOf(delivery),
      UpdateExpression: 'SET #state = :state, notSentReason = :reason',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':state': state, ':reason': reason },
    }),
  );
}

/**
 * Marks the delivery Pending for a redelivery at `now` when it is settled (Delivered or Failed: not Pending,
 * with an attempt or a redelivery under way, nor Paused, waiting for its webhook's resume or being its probe)
 * and was not redelivered in the last REDELIVERY_INTERVAL_MS: false otherwise. Conditional, so of parallel redeliveries one wins.
 */
export const markRedelivery = (delivery: Delivery, now: number): Promise<boolean> =>
  writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keyOf(delivery),
      UpdateExpression: 'SET #state = :pending, redeliveredAt = :now',
      ConditionExpression:
        '#state IN (:delivered, :failed) AND (attribute_not_exists(redeliveredAt) OR redeliveredAt <= :since)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':pending': 'Pending',
        ':delivered': 'Delivered',
        ':failed': 'Failed',
        ':now': now,
        ':since': now - REDELIVERY_INTERVAL_MS,
      },
    }),
  );

/** Undoes markRedelivery of `now` when its message could not be sent: the delivery is back as it was. */
export const unmarkRedelivery = (delivery: Delivery, now: number): Promise<boolean> =>
  writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: keyOf(delivery),
      UpdateExpression:
        delivery.redeliveredAt === undefined
          ? 'SET #state = :state REMOVE redeliveredAt'
          : 'SET #state = :state, redeliveredAt = :before',
      ConditionExpression: '#state = :pending AND redeliveredAt = :now',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':pending': 'Pending',
        ':state': delivery.state,
        ':now': now,
        ...(delivery.redeliveredAt === undefined ? {} : { ':before': delivery.redeliveredAt }),
      },
    }),
  );

/** One page of a webhook's deliveries, newest first (delivery ids sort by their event's time) over its shards. */
export async function listDeliveries(
  webhookId: string,
  page: PageRequest,
): Promise<{ deliveries: Delivery[]; nextCursor?: string }> {
  const { items, nextCursor } = await shardedPage(
    {
      basePk: webhookDeliveryPk(webhookId),
      shards: DELIVERY_SHARDS,
      sortKeyPrefix: DELIVERY_PREFIX,
      newestFirst: true,
    },
    page,
  );
  return {
    deliveries: items.map((item) => fromItem<Delivery>(item)),
    ...(nextCursor === undefined ? {} : { nextCursor }),
  };
}
