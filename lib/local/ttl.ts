/**
 * DynamoDB's Time to Live and the sweeper's stream mapping, for the local stand-in: dynalite has neither.
 * A run finds every item whose TTL attribute has passed, turns each into the stream record DynamoDB's TTL
 * deletion produces (old image, DynamoDB's service identity), hands the records that pass the sweeper's
 * event filter to the sweeper handler, and deletes the items. An item whose sweep failed stays until the
 * next run, which hands it over again, as the stream retries a failed record (here the retry survives a
 * restart too). The Scan stands in for DynamoDB's own process; no request path runs it.
 */
import { randomUUID } from 'node:crypto';
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  ScanCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { SWEEPER_STREAM_FILTER } from '../../functions/contracts/library-sweep.ts';
import { table } from '../../functions/store/table.ts';
import { lambdaContext } from './api-gateway.ts';
import { matchesFilter } from './event-filter.ts';
import { localDynamoClient, type LocalStorage } from './storage.ts';

export interface TtlRun {
  /** Items deleted because their TTL had passed. */
  expired: number;
  /** Of those, the ones the library sweeper was given and finished (its event filter matched). */
  swept: number;
  /** Expired items the sweeper failed on: kept for the next run. */
  retrying: number;
}

export interface TtlStandIn {
  /** One run at the clock `nowMs` (default: now). */
  run(nowMs?: number): Promise<TtlRun>;
  close(): void;
}

type Item = Record<string, AttributeValue>;

let sequence = 0;

/** The stand-in for one table; the sweeper handler is loaded on first use, after the caller has set the environment. */
export function ttlStandIn(storage: Pick<LocalStorage, 'dynamoEndpoint'>, tableName: string): TtlStandIn {
  const client = localDynamoClient(storage);
  return {
    async run(nowMs = Date.now()) {
      const expired = (await expiredItems(client, tableName, nowMs)).map((item) => ({
        item,
        record: ttlDeletionRecord(item, nowMs),
      }));
      const forSweeper = expired.filter(({ record }) => matchesFilter(SWEEPER_STREAM_FILTER, record));
      let failedFrom = forSweeper.length;
      if (forSweeper.length > 0) {
        const { handler: sweeper } = (await import('../../functions/handlers/sweep-library-leftovers.ts')) as {
          handler: (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;
        };
        const failed = (
          await sweeper(
            { Records: forSweeper.map(({ record }) => record) },
            lambdaContext('sweep-library-leftovers', 60_000),
          )
        ).batchItemFailures[0];
        // A failure names the record to retry from; one it does not name is the whole batch.
        if (failed)
          failedFrom = Math.max(
            0,
            forSweeper.findIndex(({ record }) => record.dynamodb?.SequenceNumber === failed.itemIdentifier),
          );
      }
      const kept = new Set(forSweeper.slice(failedFrom));
      let deleted = 0;
      for (const entry of expired)
        if (!kept.has(entry) && (await deleteIfUnchanged(client, tableName, entry.item))) deleted++;
      return { expired: deleted, swept: failedFrom, retrying: kept.size };
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

/** Only the version that expired: an item rewritten meanwhile with a later TTL stays. */
async function deleteIfUnchanged(dynamo: DynamoDBClient, tableName: string, item: Item): Promise<boolean> {
  try {
    await dynamo.send(
      new DeleteItemCommand({
        TableName: tableName,
        Key: keyOf(item),
        ConditionExpression: '#ttl = :ttl',
        ExpressionAttributeNames: { '#ttl': table.timeToLiveAttribute },
        ExpressionAttributeValues: { ':ttl': item[table.timeToLiveAttribute]! },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

const ttlDeletionRecord = (item: Item, nowMs: number): DynamoDBRecord => ({
  eventID: randomUUID(),
  eventName: 'REMOVE',
  eventSource: 'aws:dynamodb',
  eventVersion: '1.1',
  userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
  dynamodb: {
    ApproximateCreationDateTime: Math.floor(nowMs / 1000),
    Keys: keyOf(item) as never,
    OldImage: item as never,
    SequenceNumber: String(++sequence).padStart(21, '0'),
    StreamViewType: 'OLD_IMAGE',
  },
});
