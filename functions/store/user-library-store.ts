/**
 * The signed-in user's library. Which user holds an item is decided on the item record (`userId`, set once
 * by a conditional write, never changed), which user claimed a builder link on the link record
 * (`claimedBy`). The user's own partition `LIBUSER#<userId>` holds, per item:
 * - an entry, SK `ITEM#<item createdAt, 13 digits>#<itemGuid>`, a copy of the item record (item records
 *   never change once committed), so a page of the library is one Query, newest first, with no BatchGet;
 * - a reference, SK `REF#<itemGuid>`, naming the entry's sort key and the object key, so that DELETE finds
 *   both from the guid alone, also when a DELETE that died half way already removed the item record.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { fromItem, toItem, type TableKey } from './table.ts';
import { batchPutItems } from './batch.ts';
import {
  builderLinkKey,
  LIBRARY_ENTRY_PREFIX,
  libraryEntryKey,
  libraryEntrySortKey,
  libraryItemKey,
  libraryRefKey,
  libraryUserPk,
} from './keys.ts';
import { sendIfCondition } from './writes.ts';
import { queryPage, type PageRange } from './query.ts';
import { deleteRecord, type BuilderLink } from './library-store.ts';
import type { StoredItem } from '../domain/library-read.ts';

export interface ClaimedItem extends StoredItem {
  userId: string;
}

export interface ClaimedLink extends BuilderLink {
  claimedBy: string;
  claimedAt: number;
}

export interface LibraryRef {
  itemGuid: string;
  entrySortKey: string;
  objectKey: string;
}

/** One conditional UpdateItem answering the record as it is afterwards; undefined when the condition fails. */
async function updateIf<T>(
  key: TableKey,
  update: string,
  condition: string,
  values: Record<string, unknown>,
): Promise<T | undefined> {
  const result = await sendIfCondition(
    new UpdateCommand({
      TableName: config.tableName,
      Key: key,
      UpdateExpression: update,
      ConditionExpression: condition,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return result ? fromItem<T>(result.Attributes ?? {}) : undefined;
}

/**
 * The claim's decision: the link becomes this user's if nobody claimed it, or stays this user's (a repeated
 * claim keeps its first claimedAt). 'missing': no such link; 'taken': another user claimed it.
 */
export async function claimBuilderLink(
  token: string,
  userId: string,
  now: number,
): Promise<ClaimedLink | 'missing' | 'taken'> {
  const claimed = await updateIf<ClaimedLink>(
    builderLinkKey(token),
    'SET claimedBy = :user, claimedAt = if_not_exists(claimedAt, :now)',
    'attribute_exists(PK) AND (attribute_not_exists(claimedBy) OR claimedBy = :user)',
    { ':user': userId, ':now': now },
  );
  if (claimed) return claimed;
  const existing = await dynamo.send(
    new GetCommand({
      TableName: config.tableName,
      Key: builderLinkKey(token),
      ConsistentRead: true,
      ProjectionExpression: 'PK',
    }),
  );
  return existing.Item ? 'taken' : 'missing';
}

/** The item becomes this user's unless another user holds it or it was deleted: then undefined. */
export const claimItem = (itemGuid: string, userId: string): Promise<ClaimedItem | undefined> =>
  updateIf<ClaimedItem>(
    libraryItemKey(itemGuid),
    'SET userId = :user',
    'attribute_exists(PK) AND (attribute_not_exists(userId) OR userId = :user)',
    { ':user': userId },
  );

/** The references of claimed items: plain puts of the same content on every retry. */
export const putLibraryRefs = (userId: string, items: ClaimedItem[]) =>
  batchPutItems(
    items.map((item) =>
      toItem(libraryRefKey(userId, item.itemGuid), 'LibraryRef', {
        itemGuid: item.itemGuid,
        entrySortKey: libraryEntrySortKey(item),
        objectKey: item.objectKey,
      } satisfies LibraryRef),
    ),
  );

/** The listing entries of claimed items (copies of their records): plain puts, safe to repeat. */
export const putLibraryEntries = (userId: string, items: ClaimedItem[]) =>
  batchPutItems(items.map((item) => toItem(libraryEntryKey(userId, libraryEntrySortKey(item)), 'LibraryEntry', item)));

export async function getLibraryRef(userId: string, itemGuid: string): Promise<LibraryRef | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: libraryRefKey(userId, itemGuid), ConsistentRead: true }),
  );
  return result.Item ? fromItem<LibraryRef>(result.Item) : undefined;
}

export const deleteLibraryEntry = (userId: string, sortKey: string) => deleteRecord(libraryEntryKey(userId, sortKey));
export const deleteLibraryRef = (userId: string, itemGuid: string) => deleteRecord(libraryRefKey(userId, itemGuid));

const libraryRange = (userId: string): PageRange => ({
  partitionKey: 'PK',
  partitionValue: libraryUserPk(userId),
  sortKey: 'SK',
  sortKeyPrefix: LIBRARY_ENTRY_PREFIX,
});

/** One page of the user's items, newest first: one Query (see store/query.ts for the cursor's checks). */
export async function queryLibraryPage(
  userId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ items: ClaimedItem[]; nextCursor?: string }> {
  const range = libraryRange(userId);
  const result = await queryPage(
    {
      TableName: config.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': range.partitionValue, ':prefix': LIBRARY_ENTRY_PREFIX },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    range,
    page,
  );
  return {
    items: result.items.map((record) => fromItem<ClaimedItem>(record)),
    ...(result.nextCursor !== undefined ? { nextCursor: result.nextCursor } : {}),
  };
}
