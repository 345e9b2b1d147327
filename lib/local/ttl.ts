/**
 * DynamoDB's Time to Live, for the local stand-in: DynamoDB Local accepts the TTL setting but never deletes
 * expired items. A run finds every item whose TTL attribute has passed and deletes it, as TTL does; the
 * deletion then travels the table's real stream to the library sweeper, as in AWS (table-stream.ts). What
 * the engine cannot do is sign the deletion as TTL's own: a TTL deletion carries DynamoDB's service identity,
 * which the sweeper's filter selects. So the stand-in marks an item before deleting it (LOCAL_TTL_MARK), and
 * the stream stand-in gives REMOVE records with that mark the service identity (withTtlIdentity). The Scan
 * stands in for DynamoDB's own process; no request path runs it.
 */
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  ScanCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { table } from '../../functions/store/table.ts';
import { localDynamoClient, type LocalStorage } from './storage.ts';

export interface TtlRun {
  /** Items deleted because their TTL had passed. */
  expired: number;
  /** Expired records the library sweeper finished while the run's deletions went through the stream. */
  swept: number;
  /** Expired records the sweeper failed on: the stream retries them (the next poll, or the next run). */
  retrying: number;
}

export interface TtlStandIn {
  /** Deletes what has expired at the clock `nowMs` (default: now); answers how many items. */
  run(nowMs?: number): Promise<number>;
  close(): void;
}

type Item = Record<string, AttributeValue>;

/** The attribute the stand-in sets on an item just before its TTL deletion. */
const LOCAL_TTL_MARK = 'LocalTtlDeletion';

/** The stream record of a marked deletion, signed as DynamoDB's TTL process signs its own. */
export const withTtlIdentity = (record: DynamoDBRecord): DynamoDBRecord =>
  record.eventName === 'REMOVE' && record.dynamodb?.OldImage?.[LOCAL_TTL_MARK]?.BOOL === true
    ? { ...record, userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } }
    : record;

/** The stand-in for one table. */
export function ttlStandIn(storage: Pick<LocalStorage, 'dynamoEndpoint'>, tableName: string): TtlStandIn {
  const client = localDynamoClient(storage);
  return {
    async run(nowMs = Date.now()) {
      let deleted = 0;
      for (const item of await expiredItems(client, tableName, nowMs))
        if (await deleteIfUnchanged(client, tableName, item)) deleted++;
      return deleted;
    },
    close: () => client.destroy(),
  };
}

async function expiredItems(dynamo: DynamoDBClient, tableName: string, nowMs: number): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#ttl <= :now',
        ExpressionAttributeNames: { '#ttl': table.timeToLiveAttribute },
        ExpressionAttributeValues: { ':now': { N: String(Math.floor(nowMs / 1000)) } },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

const keyOf = (item: Item) => ({
  [table.partitionKey]: item[table.partitionKey]!,
  [table.sortKey]: item[table.sortKey]!,
});

/**
 * Only the version that expired: an item rewritten meanwhile with a later TTL stays. Marked first (the
 * stream's REMOVE record then carries the mark in its old image), then deleted only while still marked.
 */
async function deleteIfUnchanged(dynamo: DynamoDBClient, tableName: string, item: Item): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: keyOf(item),
        UpdateExpression: 'SET #mark = :true',
        ConditionExpression: '#ttl = :ttl',
        ExpressionAttributeNames: { '#ttl': table.timeToLiveAttribute, '#mark': LOCAL_TTL_MARK },
        ExpressionAttributeValues: { ':ttl': item[table.timeToLiveAttribute]!, ':true': { BOOL: true } },
      }),
    );
    await dynamo.send(
      new DeleteItemCommand({
        TableName: tableName,
        Key: keyOf(item),
        ConditionExpression: '#mark = :true AND #ttl = :ttl',
        ExpressionAttributeNames: { '#ttl': table.timeToLiveAttribute, '#mark': LOCAL_TTL_MARK },
        ExpressionAttributeValues: { ':ttl': item[table.timeToLiveAttribute]!, ':true': { BOOL: true } },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
