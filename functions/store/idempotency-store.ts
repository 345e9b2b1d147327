/**
 * The one place that reads and writes Idempotency-Key records (functions/http/idempotency.ts decides
 * what they mean). A record is `PK=IDEMPOTENCY#<digest of caller, route and key>, SK=IDEMPOTENCY`: every
 * key its own partition. Claiming a key is one conditional PutItem, so two requests with the same key
 * can never both run; no transaction is needed.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { idempotencyKey } from './keys.ts';
import { toItem, ttlSeconds } from './table.ts';
import { writeIf } from './writes.ts';

export type KeyRecord =
  /** A request with this key is running; until `runsUntil` (epoch ms, its function's deadline), then it is abandoned. */
  | { status: 'InProgress'; payloadHash: string; runsUntil: number }
  | { status: 'Completed'; payloadHash: string; responseBody: string };

interface StoredRecord {
  Status: KeyRecord['status'];
  PayloadHash: string;
  RunsUntil?: number;
  ResponseBody?: string;
  TtlEpochSeconds: number;
}

/** Claims taken by abandoned runs and records past their expiry (TTL deletes lazily) count as free. */
const FREE =
  'attribute_not_exists(PK) OR TtlEpochSeconds <= :nowSeconds OR (#status = :inProgress AND RunsUntil <= :now)';

function liveRecord(item: StoredRecord | undefined, now: number): KeyRecord | undefined {
  if (!item || item.TtlEpochSeconds <= ttlSeconds(now)) return undefined;
  if (item.Status === 'Completed')
    return { status: 'Completed', payloadHash: item.PayloadHash, responseBody: item.ResponseBody ?? '' };
  return (item.RunsUntil ?? 0) > now
    ? { status: 'InProgress', payloadHash: item.PayloadHash, runsUntil: item.RunsUntil ?? 0 }
    : undefined;
}

/**
 * Claims the key for one run until `runsUntil`. Answers undefined when this request holds the claim, or
 * the live record of the request that holds the key.
 */
export async function claimKey(
  digest: string,
  claim: { payloadHash: string; now: number; runsUntil: number; expiresAt: number },
): Promise<KeyRecord | undefined> {
  const { payloadHash, now, runsUntil, expiresAt } = claim;
  // A holder may finish or be released between the refused claim and the read: then the key is free again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await writeIf(
      new PutCommand({
        TableName: config.tableName,
        Item: toItem(
          idempotencyKey(digest),
          'IdempotencyRecord',
          { Status: 'InProgress', PayloadHash: payloadHash, RunsUntil: runsUntil },
          expiresAt,
        ),
        ConditionExpression: FREE,
        ExpressionAttributeNames: { '#status': 'Status' },
        ExpressionAttributeValues: { ':nowSeconds': ttlSeconds(now), ':now': now, ':inProgress': 'InProgress' },
      }),
    );
    if (claimed) return undefined;
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: config.tableName, Key: idempotencyKey(digest), ConsistentRead: true }),
    );
    const holder = liveRecord(Item as StoredRecord | undefined, now);
    if (holder) return holder;
  }
  return { status: 'InProgress', payloadHash, runsUntil };
}

/** Stores the answer of the run that holds the claim; retries with the key get it until `expiresAt`. */
export async function completeKey(
  digest: string,
  record: { payloadHash: string; responseBody: string; expiresAt: number },
): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(
        idempotencyKey(digest),
        'IdempotencyRecord',
        { Status: 'Completed', PayloadHash: record.payloadHash, ResponseBody: record.responseBody },
        record.expiresAt,
      ),
    }),
  );
}

/** Frees the key after a failed run, unless another request has taken the claim over meanwhile. */
export async function releaseKey(digest: string, runsUntil: number): Promise<void> {
  await writeIf(
    new DeleteCommand({
      TableName: config.tableName,
      Key: idempotencyKey(digest),
      ConditionExpression: '#status = :inProgress AND RunsUntil = :runsUntil',
      ExpressionAttributeNames: { '#status': 'Status' },
      ExpressionAttributeValues: { ':inProgress': 'InProgress', ':runsUntil': runsUntil },
    }),
  );
}
