/**
 * The one place that reads and writes orders. Four kinds of item (see table.ts for the access patterns):
 *
 * - the order:          PK=USER#<user>                    SK=ORDER#<orderGuid>  (the truth; guids sort by time)
 * - project copies:     PK=USER#<user>#PROJECT#<project>  SK=ORDER#<orderGuid>  (the whole order again, one per
 *                       project in it, so "orders with project P" is one Query bounded by the matching orders)
 * - the owner pointer:  PK=ORDER#<orderGuid>              SK=ORDER              (key callers know only the guid)
 * - the basket's claim: PK=USER#<user>                    SK=BASKETORDER#<basketGuid> (which checkout turned
 *                       the basket into which order; written once, it makes completion idempotent)
 *
 * No transactions: every write is a single-item conditional write that is safe to repeat, and copies only
 * ever move forward (a copy is replaced only by a higher `revision`).
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { fromItem, table, toItem } from './table.ts';
import { basketClaimKey, ORDER_PREFIX, orderCopyKey, orderKey, orderOwnerKey, userPk, userProjectPk } from './keys.ts';
import { queryPage, type PageRequest } from './query.ts';
import { writeIf } from './writes.ts';
import { orderProjects, type Order, type OrderClaim } from '../domain/order.ts';

/** Thrown when the revision condition fails: another request changed the order first. */
export class StaleOrderError extends Error {}

/**
 * A put whose failed condition means "already done" (by default: the item exists). True when this call
 * wrote the item, false when the condition kept the stored one.
 */
const putUnlessDone = (
  item: Record<string, unknown>,
  condition = 'attribute_not_exists(PK)',
  values?: Record<string, unknown>,
): Promise<boolean> =>
  writeIf(
    new PutCommand({
      TableName: config.tableName,
      Item: item,
      ConditionExpression: condition,
      ...(values ? { ExpressionAttributeValues: values } : {}),
    }),
  );

export interface OrderPage {
  orders: Order[];
  /** Present only when older orders follow. */
  nextCursor?: string;
}

/** One page of one partition's orders, newest first (order guids sort by creation time). */
async function queryOrders(pk: string, page: PageRequest): Promise<OrderPage> {
  const range = {
    partitionKey: table.partitionKey,
    partitionValue: pk,
    sortKey: table.sortKey,
    sortKeyPrefix: ORDER_PREFIX,
  };
  const { items, nextCursor } = await queryPage(
    {
      TableName: config.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': range.sortKeyPrefix },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    range,
    page,
  );
  return { orders: items.map((item) => fromItem<Order>(item)), ...(nextCursor === undefined ? {} : { nextCursor }) };
}

export async function getClaim(userId: string, basketGuid: string): Promise<OrderClaim | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: basketClaimKey(userId, basketGuid), ConsistentRead: true }),
  );
  if (!result.Item) return undefined;
  const { orderGuid, checkoutId, paymentReference, createdAt } = result.Item as OrderClaim;
  return { orderGuid, checkoutId, paymentReference, createdAt };
}

/** Claims the basket for one order; false when it was claimed already (read the winner with getClaim). */
export const insertClaim = (userId: string, basketGuid: string, claim: OrderClaim): Promise<boolean> =>
  putUnlessDone(toItem(basketClaimKey(userId, basketGuid), 'BasketOrder', claim));

/** The pointer from an order guid to its owner. Written before the order, so an existing order always has one. */
export async function insertOrderOwner(order: Order): Promise<void> {
  await putUnlessDone(toItem(orderOwnerKey(order.orderGuid), 'OrderOwner', { userId: order.userId }));
}

export async function findOrderOwner(orderGuid: string): Promise<string | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: orderOwnerKey(orderGuid), ConsistentRead: true }),
  );
  return result.Item?.userId as string | undefined;
}

/** Writes a new order; false when it exists already (a repeated completion). */
export const insertOrder = (order: Order): Promise<boolean> =>
  putUnlessDone(toItem(orderKey(order.userId, order.orderGuid), 'Order', order));

/** One GetItem; the key holds the owner, so another user's order reads exactly like a missing one. */
export async function getOrder(userId: string, orderGuid: string): Promise<Order | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: orderKey(userId, orderGuid), ConsistentRead: true }),
  );
  return result.Item ? fromItem<Order>(result.Item) : undefined;
}

/** One Query on the user's partition: a page of the user's orders, newest first. */
export const listOrders = (userId: string, page: PageRequest): Promise<OrderPage> => queryOrders(userPk(userId), page);

/** One Query on the (user, project) copies: reads only orders that contain the project, a page, newest first. */
export const listOrdersWithProject = (userId: string, projectGuid: string, page: PageRequest): Promise<OrderPage> =>
  queryOrders(userProjectPk(userId, projectGuid), page);

/** Saves a status change as `order.revision`, only if the stored order is still at `expectedRevision`. */
export async function saveOrderStatus(order: Order, expectedRevision: number): Promise<void> {
  const completed = order.completedAt === undefined ? '' : ', completedAt = :completedAt';
  const saved = await writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: orderKey(order.userId, order.orderGuid),
      UpdateExpression: `SET #status = :status, previousStatus = :previous, revision = :revision, lastSavedAt = :lastSavedAt${completed}`,
      ConditionExpression: 'revision = :expected',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': order.status,
        ':previous': order.previousStatus,
        ':revision': order.revision,
        ':lastSavedAt': order.lastSavedAt,
        ':expected': expectedRevision,
        ...(order.completedAt === undefined ? {} : { ':completedAt': order.completedAt }),
      },
    }),
  );
  if (!saved) throw new StaleOrderError();
}

/**
 * Brings every project copy of the order up to its revision: creates missing ones, replaces older ones,
 * leaves newer ones alone. Safe to repeat and to run concurrently with a later status change.
 */
export async function syncProjectCopies(order: Order): Promise<void> {
  const { createdEventPublished: _created, publishedRevision: _published, ...copy } = order;
  await Promise.all(
    orderProjects(order).map((projectGuid) =>
      putUnlessDone(
        toItem(orderCopyKey(order.userId, projectGuid, order.orderGuid), 'OrderProjectCopy', copy),
        'attribute_not_exists(PK) OR revision < :revision',
        {
          ':revision': order.revision,
        },
      ),
    ),
  );
}

/** Outbox marker: the OrderCreated event was published. */
export async function markCreatedEventPublished(order: Order): Promise<void> {
  await dynamo.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: orderKey(order.userId, order.orderGuid),
      UpdateExpression: 'SET createdEventPublished = :true',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':true': true },
    }),
  );
}

/** Outbox marker: the status event of `revision` was published. Never moves back (a later marker stays). */
export async function markStatusEventPublished(order: Order, revision: number): Promise<void> {
  await writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: orderKey(order.userId, order.orderGuid),
      UpdateExpression: 'SET publishedRevision = :revision',
      ConditionExpression: 'publishedRevision < :revision',
      ExpressionAttributeValues: { ':revision': revision },
    }),
  );
}
