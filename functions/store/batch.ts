/** BatchGetItem of any keys of the table, finishing UnprocessedKeys; cost is bounded by the keys asked for. */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { serviceUnavailable } from '../shared/errors.ts';

/** DynamoDB's limit of keys per BatchGetItem call. */
const KEYS_PER_CALL = 100;

/** The items found among `keys` (missing keys are left out), strongly consistent, in any order. */
export async function batchGetItems(keys: { PK: string; SK: string }[]): Promise<Record<string, unknown>[]> {
  const tableName = config.tableName;
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += KEYS_PER_CALL) {
    let pending: Record<string, unknown>[] = keys.slice(start, start + KEYS_PER_CALL);
    // UnprocessedKeys only appear under throttling; the SDK's own retries back off, this loop just finishes the batch.
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 5) throw serviceUnavailable('The table is throttling reads right now; retry the request.');
      const result = await dynamo.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }));
      found.push(...(result.Responses?.[tableName] ?? []));
      pending = (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return found;
}
