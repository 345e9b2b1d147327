/**
 * The backfill command's own read (bin/renditions.ts): item records without a renditions state, a page at a
 * time. A Scan, so it lives outside functions/: no request path, and no function's bundle, can hold it.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../functions/shared/clients/dynamodb.ts';
import { config } from '../functions/shared/config.ts';
import { KEYS } from '../functions/store/keys.ts';

/**
 * One page of item records that have no renditions state yet, for the backfill command (bin/renditions.ts):
 * a Scan, which no request ever runs; `after` continues where the page before stopped.
 */
export async function scanItemsWithoutRenditions(
  after?: Record<string, unknown>,
): Promise<{ itemGuids: string[]; next?: Record<string, unknown> }> {
  const result = await dynamo.send(
    new ScanCommand({
      TableName: config.tableName,
      FilterExpression: 'begins_with(PK, :items) AND attribute_not_exists(renditions)',
      ExpressionAttributeValues: { ':items': KEYS.libraryItem },
      ProjectionExpression: 'itemGuid',
      ConsistentRead: true,
      ...(after ? { ExclusiveStartKey: after } : {}),
    }),
  );
  return {
    itemGuids: (result.Items ?? []).map((item) => String(item.itemGuid)),
    ...(result.LastEvaluatedKey ? { next: result.LastEvaluatedKey } : {}),
  };
}
