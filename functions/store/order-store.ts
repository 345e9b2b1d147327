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
import { libraryItemKey, ORDER_PREFIX, orderCopyKey, orderKey, orderOwnerKey, userPk, userProjectPk } from './keys.ts';
import { batchGetItems } from './batch.ts';
import { queryPage, type PageRequest } from './query.ts';
import { create, put, update, type WriteAction } from './transaction.ts';
import { artworkLinesOf, orderProjects, type ArtworkLine, type Order } from '../domain/order.ts';
import type { StoredItem } from '../domain/library-read.ts';

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

/** The owner pointer as the lab's reads use it. */
export interface OwnerPointer {
  userId: string;
  artworkLines: ArtworkLine[];
  cancelled: boolean;
  /** When the order's artwork hold ends (ms), once a change ended it (Cancelled, Completed). */
  heldUntil?: number;
}

const ownerPointerOf = (item: Record<string, unknown>): OwnerPointer => ({
  userId: item.userId as string,
  // An order created before artwork was kept has no lines on its pointer: it names no artwork.
  artworkLines: (item.artworkLines ?? []) as ArtworkLine[],
  cancelled: item.cancelled === true,
  ...(typeof item.heldUntil === 'number' ? { heldUntil: item.heldUntil } : {}),
});

/** The order's owner and its lines' artwork, from the owner pointer (one GetItem); undefined for no such order. */
export async function getOrderArtworkLines(orderGuid: string): Promise<OwnerPointer | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: orderOwnerKey(orderGuid), ConsistentRead: true }),
  );
  return result.Item ? ownerPointerOf(result.Item) : undefined;
}

/**
 * What an artwork DownloadLink's check reads, in one BatchGetItem: the order's owner pointer (its cancel and
 * the end of its hold) and the item's record, which an erasure deletes at once (held or not).
 */
export async function getLinkedArtwork(
  orderGuid: string,
  itemGuid: string,
): Promise<{ pointer?: OwnerPointer; item?: StoredItem }> {
  const found = await batchGetItems([orderOwnerKey(orderGuid), libraryItemKey(itemGuid)]);
  const pointer = found.find((item) => item.PK === orderOwnerKey(orderGuid).PK);
  const item = found.find((item) => item.PK === libraryItemKey(itemGuid).PK);
  return {
    ...(pointer ? { pointer: ownerPointerOf(pointer) } : {}),
    ...(item ? { item: fromItem<StoredItem>(item) } : {}),
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

/**
 * The order's status change, with its copies. Its condition: the stored order is still at `expectedRevision`.
 * `heldUntil`: the end of the order's artwork hold when this change ends it, kept on the owner pointer too.
 */
export function changeStatusActions(order: Order, expectedRevision: number, heldUntil?: number): WriteAction[] {
  const completed = order.completedAt === undefined ? '' : ', completedAt = :completedAt';
  const cancelled = order.status === 'Cancelled';
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
    // The lab's reads (the artwork, its links) answer from the owner pointer: they learn the cancel and the
    // hold's end there.
    ...(heldUntil === undefined
      ? []
      : [
          update(orderOwnerKey(order.orderGuid), `SET heldUntil = :until${cancelled ? ', cancelled = :true' : ''}`, {
            values: { ':until': heldUntil, ...(cancelled ? { ':true': true } : {}) },
          }),
        ]),
  ];
}

/** The order an item holds (e.g. a failed condition's ALL_OLD item). */
export const orderOf = (item: Record<string, unknown>): Order => fromItem<Order>(item);
