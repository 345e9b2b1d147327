/**
 * The one place that reads and writes basket items. A basket and all its lines are one item, so every
 * change is a single conditional PutItem on the item's version: concurrent writers never overwrite each
 * other, the loser retries on fresh data (see services/basket-service.ts).
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { newSecretId } from '../shared/ids.ts';
import { isExpired, type Basket } from '../domain/basket.ts';
import type { ProjectPrice } from '../domain/project.ts';
import { fromItem, table, toItem } from './table.ts';
import { queryEach, queryPage, type PageRequest } from './query.ts';
import { batchGetItems } from './batch.ts';
import { BASKET_PREFIX, basketKey, projectKey, userPk } from './keys.ts';
import { projectFromItem } from './project-store.ts';
import { writeIf } from './writes.ts';

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

export async function insertBasket(basket: Basket): Promise<void> {
  const writeId = newSecretId();
  if (
    await writeIf(
      new PutCommand({
        TableName: config.tableName,
        Item: basketItem(basket, writeId),
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    )
  )
    return;
  if (!(await landed(basket, writeId))) throw new Error(`basket ${basket.guid} exists already`);
}

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
 * How many unexpired baskets the user has, counted up to `atMost` (the quota): a Query of the user's
 * baskets that stops as soon as `atMost` are found. Expired baskets TTL has not deleted yet are read but
 * not counted, so the cost is bounded by the quota plus those (DynamoDB deletes them within days).
 */
export async function countOpenBaskets(userId: string, now: number, atMost: number): Promise<number> {
  let count = 0;
  await queryEach(
    {
      TableName: config.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      FilterExpression: 'expiresAt > :now',
      ExpressionAttributeValues: { ':pk': userPk(userId), ':prefix': BASKET_PREFIX, ':now': now },
      Select: 'COUNT',
      ConsistentRead: true,
    },
    (page) => {
      count += page.Count ?? 0;
      return count < atMost;
    },
  );
  return count;
}

/** Saves `basket` as version `expectedVersion + 1`, only if nobody saved since `expectedVersion` was read. */
export async function saveBasket(basket: Basket, expectedVersion: number): Promise<Basket> {
  const saved = { ...basket, version: expectedVersion + 1 };
  const writeId = newSecretId();
  const written = await writeIf(
    new PutCommand({
      TableName: config.tableName,
      Item: basketItem(saved, writeId),
      ConditionExpression: 'attribute_exists(PK) AND #version = :expected',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':expected': expectedVersion },
    }),
  );
  if (!written && !(await landed(saved, writeId))) throw new StaleBasketError();
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
      : {
          ConditionExpression: 'attribute_exists(PK) AND #version = :expected',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':expected': expectedVersion },
        };
  return writeIf(new DeleteCommand({ TableName: config.tableName, Key: basketKey(userId, guid), ...versionCheck }));
}
