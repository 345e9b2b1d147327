/**
 * The one place that reads and writes orders. Four kinds of item (see table.ts for the access patterns):
 *
 * - the order:          PK=USER#<user>                    SK=ORDER#<orderGuid>  (the truth; guids sort by time)
 * - project copies:     PK=USER#<user>#PROJECT#<project>  SK=ORDER#<orderGuid>  (the whole order again, one per
 *                       project in it, so "orders with project P" is one Query bounded by the matching orders)
 * - the owner pointer:  PK=ORDER#<orderGuid>              SK=ORDER              (internal callers know only the guid)
 * - the basket's claim: PK=USER#<user>                    SK=BASKETORDER#<basketGuid> (which checkout turned
 *                       the basket into which order; written once, it makes completion idempotent)
 *
 * No transactions: every write is a single-item conditional write that is safe to repeat, and copies only
 * ever move forward (a copy is replaced only by a higher `revision`).
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { keyPart, table } from './table.ts';
import { queryPage, type PageRequest } from './query.ts';
import { orderProjects, type Order, type OrderClaim } from '../domain/order.ts';

const userPk = (userId: string) => `USER#${keyPart(userId)}`;
const projectPk = (userId: string, projectGuid: string) => `${userPk(userId)}#PROJECT#${projectGuid}`;
const orderSk = (orderGuid: string) => `ORDER#${orderGuid}`;
const orderKey = (userId: string, orderGuid: string) => ({ PK: userPk(userId), SK: orderSk(orderGuid) });
const ownerKey = (orderGuid: string) => ({ PK: `ORDER#${orderGuid}`, SK: 'ORDER' });
const claimKey = (userId: string, basketGuid: string) => ({ PK: userPk(userId), SK: `BASKETORDER#${basketGuid}` });

/** Thrown when the revision condition fails: another request changed the order first. */
export class StaleOrderError extends Error {}

const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException;

/** A conditional put whose failed condition means "already done": true when this call wrote the item. */
async function putIfAbsent(item: Record<string, unknown>, condition = 'attribute_not_exists(PK)', values?: Record<string, unknown>): Promise<boolean> {
  try {
    await dynamo.send(new PutCommand({ TableName: config.tableName, Item: item, ConditionExpression: condition, ...(values ? { ExpressionAttributeValues: values } : {}) }));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

function toOrder(item: Record<string, unknown>): Order {
  const { PK: _pk, SK: _sk, Type: _type, ...order } = item;
  return order as unknown as Order;
}

export interface OrderPage {
  orders: Order[];
  /** Present only when older orders follow. */
  nextCursor?: string;
}

/** One page of one partition's orders, newest first (order guids sort by creation time). */
async function queryOrders(pk: string, page: PageRequest): Promise<OrderPage> {
  const range = { partitionKey: table.partitionKey, partitionValue: pk, sortKey: table.sortKey, sortKeyPrefix: 'ORDER#' };
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
  return { orders: items.map(toOrder), ...(nextCursor === undefined ? {} : { nextCursor }) };
}

export async function getClaim(userId: string, basketGuid: string): Promise<OrderClaim | undefined> {
  const result = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: claimKey(userId, basketGuid), ConsistentRead: true }));
  if (!result.Item) return undefined;
  const { orderGuid, checkoutId, paymentReference, createdAt } = result.Item as OrderClaim;
  return { orderGuid, checkoutId, paymentReference, createdAt };
}

/** Claims the basket for one order; false when it was claimed already (read the winner with getClaim). */
export const insertClaim = (userId: string, basketGuid: string, claim: OrderClaim): Promise<boolean> =>
  putIfAbsent({ ...claimKey(userId, basketGuid), Type: 'BasketOrder', ...claim });

/** The pointer from an order guid to its owner. Written before the order, so an existing order always has one. */
export async function insertOrderOwner(order: Order): Promise<void> {
  await putIfAbsent({ ...ownerKey(order.orderGuid), Type: 'OrderOwner', userId: order.userId });
}

export async function findOrderOwner(orderGuid: string): Promise<string | undefined> {
  const result = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: ownerKey(orderGuid), ConsistentRead: true }));
  return result.Item?.userId as string | undefined;
}

/** Writes a new order; false when it exists already (a repeated completion). */
export const insertOrder = (order: Order): Promise<boolean> => putIfAbsent({ ...orderKey(order.userId, order.orderGuid), Type: 'Order', ...order });

/** One GetItem; the key holds the owner, so another user's order reads exactly like a missing one. */
export async function getOrder(userId: string, orderGuid: string): Promise<Order | undefined> {
  const result = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: orderKey(userId, orderGuid), ConsistentRead: true }));
  return result.Item ? toOrder(result.Item) : undefined;
}

/** One Query on the user's partition: a page of the user's orders, newest first. */
export const listOrders = (userId: string, page: PageRequest): Promise<OrderPage> => queryOrders(userPk(userId), page);

/** One Query on the (user, project) copies: reads only orders that contain the project, a page, newest first. */
export const listOrdersWithProject = (userId: string, projectGuid: string, page: PageRequest): Promise<OrderPage> => queryOrders(projectPk(userId, projectGuid), page);

/** Saves a status change as `order.revision`, only if the stored order is still at `expectedRevision`. */
export async function saveOrderStatus(order: Order, expectedRevision: number): Promise<void> {
  const completed = order.completedAt === undefined ? '' : ', completedAt = :completedAt';
  try {
    await dynamo.send(
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
  } catch (error) {
    if (isConditionFailure(error)) throw new StaleOrderError();
    throw error;
  }
}

/**
 * Brings every project copy of the order up to its revision: creates missing ones, replaces older ones,
 * leaves newer ones alone. Safe to repeat and to run concurrently with a later status change.
 */
export async function syncProjectCopies(order: Order): Promise<void> {
  const { createdEventPublished: _created, publishedRevision: _published, ...copy } = order;
  await Promise.all(
    orderProjects(order).map((projectGuid) =>
      putIfAbsent({ PK: projectPk(order.userId, projectGuid), SK: orderSk(order.orderGuid), Type: 'OrderProjectCopy', ...copy }, 'attribute_not_exists(PK) OR revision < :revision', {
        ':revision': order.revision,
      }),
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

/** Outbox marker: the status event of `revision` was published. Never moves back. */
export async function markStatusEventPublished(order: Order, revision: number): Promise<void> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: orderKey(order.userId, order.orderGuid),
        UpdateExpression: 'SET publishedRevision = :revision',
        ConditionExpression: 'publishedRevision < :revision',
        ExpressionAttributeValues: { ':revision': revision },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
