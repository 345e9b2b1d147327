/**
 * BatchGetItem over any keys of the table, finishing what DynamoDB leaves unprocessed (writes of several
 * records are transactions: store/transaction.ts). Unprocessed keys only appear under throttling; the SDK's own retries back off
 * before each call, so these loops only finish the batch, and give up with the one throttling answer
 * (503 ServiceUnavailable, retryable) after a bounded number of rounds. Cost is bounded by what is asked.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { serviceUnavailable } from '../shared/errors.ts';
import type { TableKey } from './table.ts';

/** DynamoDB's limits per call. */
const KEYS_PER_GET = 100;
/** Calls for one chunk before the request gives up. */
const MAX_ROUNDS = 6;

/** `all` in runs of at most `size`, in order. */
export const chunks = <T>(all: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(all.length / size) }, (_, index) => all.slice(index * size, (index + 1) * size));

/** Sends `call` with `pending`, then with what it left unprocessed, until nothing is left. */
async function untilProcessed<T>(pending: T[], call: (pending: T[]) => Promise<T[]>): Promise<void> {
  for (let round = 0; pending.length > 0; round++) {
    if (round >= MAX_ROUNDS) throw serviceUnavailable('The table is throttling requests right now; retry the request.');
    pending = await call(pending);
  }
}

/** The items found among `keys` (missing keys are left out), strongly consistent, in any order. */
export async function batchGetItems(keys: readonly TableKey[]): Promise<Record<string, unknown>[]> {
  const tableName = config.tableName;
  const found: Record<string, unknown>[] = [];
  for (const chunk of chunks(keys, KEYS_PER_GET)) {
    await untilProcessed<Record<string, unknown>>(chunk, async (pending) => {
      const result = await dynamo.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      found.push(...(result.Responses?.[tableName] ?? []));
      return (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
    });
  }
  return found;
}
