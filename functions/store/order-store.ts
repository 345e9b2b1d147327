/**
 * The one place that reads and writes orders. Three kinds of item (see table.ts for the access patterns):
 *
 * - the order:          PK=USER#<user>                    SK=ORDER#<orderGuid>  (the truth; guids sort by time)
 * - project copies:     PK=USER#<user>#PROJECT#<project>  SK=ORDER#<orderGuid>  (the whole order again, one per
 *                       project in it, so "orders with project P" is one Query bounded by the matching orders)
 * - the owner pointer:  PK=ORDER#<orderGuid>              SK=ORDER              (internal callers know only the guid;
 *                       it keeps each line's artwork reference for the lab's read)
 *
 * Every change writes the order and all its copies in one transaction (the caller's), so a copy is never
 * behind its order: these are the actions.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { fromItem, table } from './table.ts';
import { ORDER_PREFIX, orderCopyKey, orderKey, orderOwnerKey, userPk, userProjectPk } from './keys.ts';
import { queryPage, type PageRequest } from './query.ts';
import { create, put, update, type WriteAction } from './transaction.ts';
import { artworkLinesOf, orderProjects, type ArtworkLine, type Order } from '../domain/order.ts';

const ORDER_TYPE = 'Order';
const COPY_TYPE = 'OrderProjectCopy';

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

export async function findOrderOwner(orderGuid: string): Promise<string | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: orderOwnerKey(orderGuid), ConsistentRead: true }),
  );
  return result.Item?.userId as string | undefined;
}

/** The order's owner and its lines' artwork, from the owner pointer (one GetItem); undefined for no such order. */
export async function getOrderArtworkLines(
  orderGuid: string,
): Promise<{ userId: string; artworkLines: ArtworkLine[]; cancelled: boolean } | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: orderOwnerKey(orderGuid), ConsistentRead: true }),
  );
  if (!result.Item) return undefined;
  // An order created before artwork was kept has no lines on its pointer: it names no artwork.
  return {
    userId: result.Item.userId as string,
    artworkLines: (result.Item.artworkLines ?? []) as ArtworkLine[],
    cancelled: result.Item.cancelled === true,
  };
}

/** One GetItem; the key holds the owner, so another user's order reads exactly like a missing one. */
export async function getOrder(userId: string, orderGuid: string): Promise<Order | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: orderKey(userId, orderGuid), ConsistentRead: true }),
  );
  return result.Item ? orderOf(result.Item) : undefined;
}

/** One Query on the user's partition: a page of the user's orders, newest first. */
export const listOrders = (userId: string, page: PageRequest): Promise<OrderPage> => queryOrders(userPk(userId), page);

/** One Query on the (user, project) copies: reads only orders that contain the project, a page, newest first. */
export const listOrdersWithProject = (userId: string, projectGuid: string, page: PageRequest): Promise<OrderPage> =>
  queryOrders(userProjectPk(userId, projectGuid), page);

/** The project copies of the order, as it is now: one put per project, in the order's transaction. */
const copyActions = (order: Order): WriteAction[] =>
  orderProjects(order).map((projectGuid) =>
    put(orderCopyKey(order.userId, projectGuid, order.orderGuid), COPY_TYPE, order),
  );

/** A new order: the order, its owner pointer and its project copies. The order's condition: none under its guid yet. */
export const createOrderActions = (order: Order): WriteAction[] => [
  create(orderKey(order.userId, order.orderGuid), ORDER_TYPE, order),
  create(orderOwnerKey(order.orderGuid), 'OrderOwner', { userId: order.userId, artworkLines: artworkLinesOf(order) }),
  ...copyActions(order),
];

/** The order's status change, with its copies. Its condition: the stored order is still at `expectedRevision`. */
export function changeStatusActions(order: Order, expectedRevision: number): WriteAction[] {
  const completed = order.completedAt === undefined ? '' : ', completedAt = :completedAt';
  return [
    update(
      orderKey(order.userId, order.orderGuid),
      `SET #status = :status, previousStatus = :previous, revision = :revision, lastSavedAt = :lastSavedAt${completed}`,
      {
        names: { '#status': 'status' },
        values: {
          ':status': order.status,
          ':previous': order.previousStatus,
          ':revision': order.revision,
          ':lastSavedAt': order.lastSavedAt,
          ...(order.completedAt === undefined ? {} : { ':completedAt': order.completedAt }),
        },
        condition: { if: 'revision = :expected', values: { ':expected': expectedRevision } },
      },
    ),
    ...copyActions(order),
    // The lab's artwork read answers from the owner pointer alone: it learns the cancel there.
    ...(order.status === 'Cancelled'
      ? [update(orderOwnerKey(order.orderGuid), 'SET cancelled = :true', { values: { ':true': true } })]
      : []),
  ];
}

/** The order an item holds (e.g. a failed condition's ALL_OLD item). */
export const orderOf = (item: Record<string, unknown>): Order => fromItem<Order>(item);
