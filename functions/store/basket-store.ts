/**
 * The one place that reads and writes basket items. A basket and all its lines are one item, so a change
 * of its lines is a single conditional PutItem on the item's version: concurrent writers never overwrite
 * each other, the loser retries on fresh data (see services/basket-service.ts). Creating and removing a
 * basket also change the user's quota record (basket-quota-store.ts): those are transaction actions here.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { newSecretId } from '../shared/ids.ts';
import { isExpired, type Basket, type OpenCheckout } from '../domain/basket.ts';
import type { ProjectPrice } from '../domain/project.ts';
import { fromItem, table, toItem } from './table.ts';
import { queryPage, type PageRequest } from './query.ts';
import { batchGetItems } from './batch.ts';
import { BASKET_PREFIX, basketKey, projectKey, userPk } from './keys.ts';
import { projectFromItem } from './project-store.ts';
import { writeIf } from './writes.ts';
import { create, put, remove, update, type Condition, type WriteAction } from './transaction.ts';

/** Thrown when the version condition fails: another request saved the basket first. */
export class StaleBasketError extends Error {}

/** The basket item carries `WriteId`, random per write: it lets a write whose answer was lost recognise itself (see `landed`). */
const basketItem = (basket: Basket, writeId: string) =>
  toItem(basketKey(basket.userId, basket.guid), 'Basket', { WriteId: writeId, ...basket }, basket.expiresAt);

function basketFromItem(item: Record<string, unknown> | undefined, now: number): Basket | undefined {
  if (!item) return undefined;
  const { WriteId: _writeId, ...basket } = fromItem<Basket & { WriteId: string }>(item);
  return isExpired(basket, now) ? undefined : basket;
}

/**
 * When a conditional write's answer is lost (connection reset, timeout), the SDK sends it again and the
 * repeat fails its own condition although the first attempt was applied. The item then carries this
 * write's id: the write landed, and re-running the change would apply it twice.
 */
async function landed(basket: Basket, writeId: string): Promise<boolean> {
  const result = await dynamo.send(
    new GetCommand({
      TableName: config.tableName,
      Key: basketKey(basket.userId, basket.guid),
      ConsistentRead: true,
      ProjectionExpression: 'WriteId',
    }),
  );
  return result.Item?.WriteId === writeId;
}

/** The action that creates the basket, in the transaction that enters it in the user's quota record. */
export const createBasketAction = (basket: Basket): WriteAction =>
  create(basketKey(basket.userId, basket.guid), 'Basket', basket, basket.expiresAt);

/** One GetItem. An expired basket reads as missing even before DynamoDB's TTL deletes it. */
export async function getBasket(userId: string, guid: string, now: number): Promise<Basket | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: basketKey(userId, guid), ConsistentRead: true }),
  );
  return basketFromItem(result.Item, now);
}

/** The basket and the project a line names, in one BatchGetItem round trip. */
export async function getBasketAndProject(
  userId: string,
  guid: string,
  projectGuid: string,
  now: number,
): Promise<{ basket?: Basket; project?: ProjectPrice }> {
  const items = await batchGetItems([basketKey(userId, guid), projectKey(projectGuid)]);
  const storedBasket = items.find((item) => item.SK === basketKey(userId, guid).SK);
  const projectItem = items.find((item) => item.PK === projectKey(projectGuid).PK);
  return { basket: basketFromItem(storedBasket, now), project: projectItem ? projectFromItem(projectItem) : undefined };
}

export interface BasketPage {
  baskets: Basket[];
  /** Present only when older baskets follow. */
  nextCursor?: string;
}

/**
 * One Query on the user's partition: a page of baskets, newest first (basket guids are time-ordered).
 * Expired baskets not yet deleted by TTL are left out after the read, so a page may hold fewer.
 */
export async function listBaskets(userId: string, now: number, page: PageRequest): Promise<BasketPage> {
  const range = {
    partitionKey: table.partitionKey,
    partitionValue: userPk(userId),
    sortKey: table.sortKey,
    sortKeyPrefix: BASKET_PREFIX,
  };
  const { items, nextCursor } = await queryPage(
    {
      TableName: config.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': range.partitionValue, ':prefix': range.sortKeyPrefix },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    range,
    page,
  );
  const baskets = items.map((item) => basketFromItem(item, now)).filter((basket) => basket !== undefined);
  return { baskets, ...(nextCursor === undefined ? {} : { nextCursor }) };
}

/**
 * A save's condition: the stored basket is still at `expectedVersion` and not past its expiry (an
 * expired basket is gone for readers, and its place in the quota may be reclaimed).
 */
const saveCondition = (expectedVersion: number, now: number): Condition => ({
  if: 'attribute_exists(PK) AND #version = :expected AND expiresAt > :now',
  names: { '#version': 'version' },
  values: { ':expected': expectedVersion, ':now': now },
});

/** Saves `basket` as version `expectedVersion + 1`, only if nobody saved since `expectedVersion` was read. */
export async function saveBasket(basket: Basket, expectedVersion: number): Promise<Basket> {
  const saved = { ...basket, version: expectedVersion + 1 };
  const writeId = newSecretId();
  const condition = saveCondition(expectedVersion, basket.lastSavedAt);
  const written = await writeIf(
    new PutCommand({
      TableName: config.tableName,
      Item: basketItem(saved, writeId),
      ConditionExpression: condition.if,
      ExpressionAttributeNames: condition.names,
      ExpressionAttributeValues: condition.values,
    }),
  );
  if (!written && !(await landed(saved, writeId))) throw new StaleBasketError();
  return saved;
}

/** saveBasket as a transaction action, with the same condition. */
export const saveBasketAction = (basket: Basket, expectedVersion: number): WriteAction =>
  put(
    basketKey(basket.userId, basket.guid),
    'Basket',
    { ...basket, version: expectedVersion + 1 },
    {
      condition: saveCondition(expectedVersion, basket.lastSavedAt),
      expiresAt: basket.expiresAt,
    },
  );

/** Names the basket's open checkout, taken of `expectedVersion`, which the basket keeps (no new version). */
export const noteOpenCheckoutAction = (basket: Basket, open: OpenCheckout, now: number): WriteAction =>
  update(basketKey(basket.userId, basket.guid), 'SET openCheckout = :open', {
    values: { ':open': open },
    condition: saveCondition(open.basketVersion, now),
  });

/**
 * The action that removes the basket. With `expectedVersion` only that version (checkout completion: a
 * basket changed after its checkout stays); its condition fails when the basket is gone or changed.
 */
export function removeBasketAction(userId: string, guid: string, expectedVersion?: number): WriteAction {
  const key = basketKey(userId, guid);
  if (expectedVersion === undefined) return remove(key, { if: 'attribute_exists(PK)' });
  return remove(key, {
    if: 'attribute_exists(PK) AND #version = :expected',
    names: { '#version': 'version' },
    values: { ':expected': expectedVersion },
  });
}
