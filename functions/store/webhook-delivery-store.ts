/**
 * The one place that reads and writes webhook deliveries (domain/webhook-delivery.ts): one item per event
 * and webhook in the webhook's partition, keyed by the time-ordered delivery id, kept DELIVERY_LOG_DAYS.
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
import { DELIVERY_PREFIX, webhookDeliveryKey, webhookDeliveryPk } from './keys.ts';
import { queryPage, type PageRequest } from './query.ts';
import { fromItem, table, toItem } from './table.ts';
import { writeIf } from './writes.ts';

/** How long the log keeps a delivery: past the longest retry schedule, long enough to look into a partner's failures. */
const DELIVERY_LOG_DAYS = 30;

/** Stores a new delivery; false when that event's delivery to that webhook exists already (a repeated fan-out). */
export const createDelivery = (delivery: Delivery): Promise<boolean> =>
  writeIf(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(
        webhookDeliveryKey(delivery.webhookId, delivery.deliveryId),
        'WebhookDelivery',
        delivery,
        delivery.createdAt + DELIVERY_LOG_DAYS * 24 * 60 * 60 * 1000,
      ),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );

export async function getDelivery(webhookId: string, deliveryId: string): Promise<Delivery | undefined> {
  const result = await dynamo.send(
    new GetCommand({
      TableName: config.tableName,
      Key: webhookDeliveryKey(webhookId, deliveryId),
      ConsistentRead: true,
    }),
  );
  return result.Item ? fromItem<Delivery>(result.Item) : undefined;
}

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
      Key: webhookDeliveryKey(delivery.webhookId, delivery.deliveryId),
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

/** Ends the delivery Failed without an attempt, saying why it was not sent. */
export async function settleUnsent(delivery: Delivery, reason: string): Promise<void> {
  await dynamo.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: webhookDeliveryKey(delivery.webhookId, delivery.deliveryId),
      UpdateExpression: 'SET #state = :failed, notSentReason = :reason',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':failed': 'Failed', ':reason': reason },
    }),
  );
}

/**
 * Marks the delivery Pending for a redelivery at `now` unless it is Pending already (its first attempt or
 * retries under way, or another redelivery) or was redelivered less than REDELIVERY_INTERVAL_MS before:
 * false then. Conditional, so of parallel redeliveries one wins.
 */
export const markRedelivery = (delivery: Delivery, now: number): Promise<boolean> =>
  writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: webhookDeliveryKey(delivery.webhookId, delivery.deliveryId),
      UpdateExpression: 'SET #state = :pending, redeliveredAt = :now',
      ConditionExpression: '#state <> :pending AND (attribute_not_exists(redeliveredAt) OR redeliveredAt <= :since)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':pending': 'Pending', ':now': now, ':since': now - REDELIVERY_INTERVAL_MS },
    }),
  );

/** Undoes markRedelivery of `now` when its message could not be sent: the delivery is back as it was. */
export const unmarkRedelivery = (delivery: Delivery, now: number): Promise<boolean> =>
  writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: webhookDeliveryKey(delivery.webhookId, delivery.deliveryId),
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

/** One page of a webhook's deliveries, newest first (delivery ids sort by their event's time). */
export async function listDeliveries(
  webhookId: string,
  page: PageRequest,
): Promise<{ deliveries: Delivery[]; nextCursor?: string }> {
  const range = {
    partitionKey: table.partitionKey,
    partitionValue: webhookDeliveryPk(webhookId),
    sortKey: table.sortKey,
    sortKeyPrefix: DELIVERY_PREFIX,
  };
  const { items, nextCursor } = await queryPage(
    {
      TableName: config.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': range.partitionValue, ':prefix': DELIVERY_PREFIX },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    range,
    page,
  );
  return {
    deliveries: items.map((item) => fromItem<Delivery>(item)),
    ...(nextCursor === undefined ? {} : { nextCursor }),
  };
}
