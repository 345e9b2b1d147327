/**
 * The one place that reads and writes basket items. A basket and all its lines are one item, so every
 * change is a single conditional PutItem on the item's version: concurrent writers never overwrite each
 * other, the loser retries on fresh data (see services/basket-service.ts).
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { newSecretId } from '../shared/ids.ts';
import { isExpired, type Basket } from '../domain/basket.ts';
import { keyPart, table, ttlSeconds } from './table.ts';
import { queryPage, type PageRequest } from './query.ts';
import { batchGetItems } from './batch.ts';
import { projectKey, toProjectPrice, type ProjectItem } from './project-store.ts';
import type { ProjectPrice } from '../domain/basket.ts';

const userPk = (userId: string) => `USER#${keyPart(userId)}`;
const basketKey = (userId: string, guid: string) => ({ PK: userPk(userId), SK: `BASKET#${guid}` });

interface BasketItem extends Basket {
  PK: string;
  SK: string;
  Type: 'Basket';
  TtlEpochSeconds: number;
  /** Random per write: lets a write whose answer was lost recognise itself (see `landed`). */
  WriteId: string;
}

/** Thrown when the version condition fails: another request saved the basket first. */
export class StaleBasketError extends Error {}

const toItem = (basket: Basket, writeId: string): BasketItem => ({
  ...basketKey(basket.userId, basket.guid),
  Type: 'Basket',
  TtlEpochSeconds: ttlSeconds(basket.expiresAt),
  WriteId: writeId,
  ...basket,
});

function fromItem(item: Record<string, unknown> | undefined, now: number): Basket | undefined {
  if (!item) return undefined;
  const { PK: _pk, SK: _sk, Type: _type, TtlEpochSeconds: _ttl, WriteId: _writeId, ...basket } = item as unknown as BasketItem;
  return isExpired(basket, now) ? undefined : basket;
}

/**
 * When a conditional write's answer is lost (connection reset, timeout), the SDK sends it again and the
 * repeat fails its own condition although the first attempt was applied. The item then carries this
 * write's id: the write landed, and re-running the change would apply it twice.
 */
async function landed(basket: Basket, writeId: string): Promise<boolean> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: basketKey(basket.userId, basket.guid), ConsistentRead: true, ProjectionExpression: 'WriteId' }),
  );
  return result.Item?.WriteId === writeId;
}

export async function insertBasket(basket: Basket): Promise<void> {
  const writeId = newSecretId();
  try {
    await dynamo.send(new PutCommand({ TableName: config.tableName, Item: toItem(basket, writeId), ConditionExpression: 'attribute_not_exists(PK)' }));
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException && (await landed(basket, writeId))) return;
    throw error;
  }
}

/** One GetItem. An expired basket reads as missing even before DynamoDB's TTL deletes it. */
export async function getBasket(userId: string, guid: string, now: number): Promise<Basket | undefined> {
  const result = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: basketKey(userId, guid), ConsistentRead: true }));
  return fromItem(result.Item, now);
}

/** The basket and the project a line names, in one BatchGetItem round trip. */
export async function getBasketAndProject(userId: string, guid: string, projectGuid: string, now: number): Promise<{ basket?: Basket; project?: ProjectPrice }> {
  const items = await batchGetItems([basketKey(userId, guid), projectKey(projectGuid)]);
  const basketItem = items.find((item) => item.SK === basketKey(userId, guid).SK);
  const projectItem = items.find((item) => item.PK === projectKey(projectGuid).PK);
  return { basket: fromItem(basketItem, now), project: projectItem ? toProjectPrice(projectItem as unknown as ProjectItem) : undefined };
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
  const range = { partitionKey: table.partitionKey, partitionValue: userPk(userId), sortKey: table.sortKey, sortKeyPrefix: 'BASKET#' };
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
  const baskets = items.map((item) => fromItem(item, now)).filter((basket) => basket !== undefined);
  return { baskets, ...(nextCursor === undefined ? {} : { nextCursor }) };
}

/**
 * How many unexpired baskets the user has, counted up to `atMost` (the quota): a Query of the user's
 * baskets that stops as soon as `atMost` are found. Expired baskets TTL has not deleted yet are read but
 * not counted, so the cost is bounded by the quota plus those (DynamoDB deletes them within days).
 */
export async function countOpenBaskets(userId: string, now: number, atMost: number): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await dynamo.send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        FilterExpression: 'expiresAt > :now',
        ExpressionAttributeValues: { ':pk': userPk(userId), ':prefix': 'BASKET#', ':now': now },
        Select: 'COUNT',
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    count += result.Count ?? 0;
    startKey = result.LastEvaluatedKey;
  } while (startKey && count < atMost);
  return count;
}

/** Saves `basket` as version `expectedVersion + 1`, only if nobody saved since `expectedVersion` was read. */
export async function saveBasket(basket: Basket, expectedVersion: number): Promise<Basket> {
  const saved = { ...basket, version: expectedVersion + 1 };
  const writeId = newSecretId();
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: toItem(saved, writeId),
        ConditionExpression: 'attribute_exists(PK) AND #version = :expected',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':expected': expectedVersion },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    if (!(await landed(saved, writeId))) throw new StaleBasketError();
  }
  return saved;
}

/**
 * Deletes the basket; false when there was none. With `expectedVersion` only that version is deleted
 * (checkout completion: a basket changed after its checkout stays), and a changed basket answers false too.
 */
export async function deleteBasket(userId: string, guid: string, expectedVersion?: number): Promise<boolean> {
  const versionCheck =
    expectedVersion === undefined
      ? { ConditionExpression: 'attribute_exists(PK)' }
      : { ConditionExpression: 'attribute_exists(PK) AND #version = :expected', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':expected': expectedVersion } };
  try {
    await dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: basketKey(userId, guid), ...versionCheck }));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
