/**
 * The renditions command's own read (bin/renditions.ts): item records without a renditions state, and the
 * library entries (copies of claimed items) to compare with their item, a page at a time. A Scan, so it
 * lives outside functions/: no request path, and no function's bundle, can hold it.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../functions/shared/clients/dynamodb.ts';
import { config } from '../functions/shared/config.ts';
import { KEYS, LIBRARY_ENTRY_PREFIX } from '../functions/store/keys.ts';
import type { LibraryEntryState } from '../functions/services/rendition-service.ts';

export interface RenditionsScanPage {
  /** Items that have no renditions state yet. */
  itemGuids: string[];
  /** Every library entry of the page, with the renditions state it copies. */
  entries: LibraryEntryState[];
  next?: Record<string, unknown>;
}

/** One page of the table's work for the renditions command; `after` continues where the page before stopped. */
export async function scanRenditionsWork(after?: Record<string, unknown>): Promise<RenditionsScanPage> {
  const result = await dynamo.send(
    new ScanCommand({
      TableName: config.tableName,
      FilterExpression:
        '(begins_with(PK, :items) AND attribute_not_exists(renditions)) OR ' +
        '(begins_with(PK, :users) AND begins_with(SK, :entries))',
      ExpressionAttributeValues: {
        ':items': KEYS.libraryItem,
        ':users': KEYS.libraryUser,
        ':entries': LIBRARY_ENTRY_PREFIX,
      },
      ProjectionExpression: 'PK, itemGuid, userId, renditions',
      ConsistentRead: true,
      ...(after ? { ExclusiveStartKey: after } : {}),
    }),
  );
  const records = result.Items ?? [];
  const isEntry = (record: Record<string, unknown>) => String(record.PK).startsWith(KEYS.libraryUser);
  return {
    itemGuids: records.filter((record) => !isEntry(record)).map((record) => String(record.itemGuid)),
    entries: records.filter(isEntry).map((record) => ({
      itemGuid: String(record.itemGuid),
      userId: String(record.userId),
      ...(record.renditions ? { renditions: record.renditions as LibraryEntryState['renditions'] } : {}),
    })),
    ...(result.LastEvaluatedKey ? { next: result.LastEvaluatedKey } : {}),
  };
}
