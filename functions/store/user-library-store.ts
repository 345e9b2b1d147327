/**
 * The signed-in user's library. Which user claimed a builder link is decided on the link record
 * (`claimedBy`); which user holds an item on the item record (`userId`, with `claimToken`, the link it was
 * claimed through), set once by a claim's holds transaction and never changed. The user's own partition
 * `LIBUSER#<userId>` holds an entry per item, SK `ITEM#<item createdAt, 13 digits>#<itemGuid>`, a copy of
 * the item record, so a page of the library is one Query, newest first, with no BatchGet; the item record
 * names the entry's key (its createdAt), so DELETE finds both from the guid alone.
 *
 * How the claim's three writes look atomic to every reader is told in docs/design.md ("a claim").
 */
import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { fromItem } from './table.ts';
import {
  builderLinkKey,
  erasureIntentKey,
  LIBRARY_ENTRY_PREFIX,
  libraryEntryKey,
  libraryEntrySortKey,
  libraryItemKey,
  libraryUserPk,
  uploadKey,
} from './keys.ts';
import { queryPage, type PageRange } from './query.ts';
import { transactRetrying, type BuilderLink } from './library-store.ts';
import { check, create, put, remove, update, type TransactionOutcome, type WriteAction } from './transaction.ts';
import type { StoredItem } from '../domain/library-read.ts';

export interface ClaimedItem extends StoredItem {
  userId: string;
  /** The builder link token the item was claimed through. */
  claimToken?: string;
}

export interface ClaimedLink extends BuilderLink {
  claimedBy: string;
  claimedAt: number;
}

/**
 * The claim's decision, one conditional UpdateItem answering the link: it becomes this user's if nobody
 * claimed it, or stays this user's (a repeated claim keeps its first claimedAt). Another user's claim
 * answers the link as it is (ReturnValuesOnConditionCheckFailure), with `claimedBy` naming them.
 */
export async function claimBuilderLink(token: string, userId: string, now: number): Promise<ClaimedLink | 'missing'> {
  try {
    const result = await dynamo.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: builderLinkKey(token),
        UpdateExpression: 'SET claimedBy = :user, claimedAt = if_not_exists(claimedAt, :now)',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(claimedBy) OR claimedBy = :user)',
        ExpressionAttributeValues: { ':user': userId, ':now': now },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return fromItem<ClaimedLink>(result.Attributes ?? {});
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return error.Item ? fromItem<ClaimedLink>(unmarshall(error.Item as Record<string, AttributeValue>)) : 'missing';
  }
}

export interface Holds {
  /** Guids now held by the user through this link. */
  held: string[];
  /** The others, with the item record found when there was one (another user's, or the user's through another link). */
  refused: Map<string, ClaimedItem | undefined>;
}

/**
 * The items become the user's through link `token`, all in one transaction: each only if it exists and
 * nobody holds it, or this user holds it through this link already (a repeat). Items that fail are left
 * out and the rest tried again, so a link naming items erased or held elsewhere takes one more round trip.
 */
export async function holdItems(userId: string, token: string, itemGuids: string[]): Promise<Holds> {
  const refused = new Map<string, ClaimedItem | undefined>();
  let pending = itemGuids;
  while (pending.length > 0) {
    const trying = pending;
    const outcome = await transactRetrying(
      trying.map((itemGuid) =>
        update(libraryItemKey(itemGuid), 'SET userId = :user, claimToken = :token', {
          condition: {
            if: 'attribute_exists(PK) AND (attribute_not_exists(userId) OR (userId = :user AND claimToken = :token))',
            values: { ':user': userId, ':token': token },
          },
        }),
      ),
    );
    if (outcome.committed) return { held: trying, refused };
    for (const failure of outcome.failed)
      refused.set(trying[failure.index] as string, failure.item ? fromItem<ClaimedItem>(failure.item) : undefined);
    pending = trying.filter((itemGuid) => !refused.has(itemGuid));
  }
  return { held: [], refused };
}

/**
 * The listing entries of the items held through link `token`, all in one transaction (the moment the claim
 * shows in the user's library), each only if new, with a check that the first item is still held through
 * this link. False when a condition failed: the claim's entries were written before (an erased item's entry
 * is gone, but so is its record), so nothing is written again and no erased item comes back.
 */
export async function addLibraryEntries(userId: string, token: string, items: ClaimedItem[]): Promise<boolean> {
  const [first] = items;
  if (!first) return true;
  const outcome = await transactRetrying([
    ...items.map((item) => create(libraryEntryKey(userId, libraryEntrySortKey(item)), 'LibraryEntry', item)),
    check(libraryItemKey(first.itemGuid), {
      if: 'userId = :user AND claimToken = :token',
      values: { ':user': userId, ':token': token },
    }),
  ]);
  return outcome.committed;
}

/** Whether the item's entry is in the user's library (one GetItem). */
export async function hasLibraryEntry(userId: string, item: ClaimedItem): Promise<boolean> {
  const result = await dynamo.send(
    new GetCommand({
      TableName: config.tableName,
      Key: libraryEntryKey(userId, libraryEntrySortKey(item)),
      ConsistentRead: true,
      ProjectionExpression: 'PK',
    }),
  );
  return result.Item !== undefined;
}

/** How long an erased item's object may wait for the sweeper, should the erasure not delete it itself. */
const ERASURE_SWEEP_AFTER_MS = 5 * 60 * 1000;

/** An item record as an erasure reads it: with its hold marks (store/artwork-hold-store.ts) when it has any. */
export interface ErasableItem extends ClaimedItem {
  holds?: Set<string>;
  holdRevision?: number;
}

/**
 * Erases the item's records in one transaction: the item record (only while this user holds it and no hold
 * mark was taken since it was read), the user's entry (only if it is there: the item is in the library), a
 * pending upload's record (it keeps a copy of the item's metadata), an erasure intent naming the object, and
 * `also` (the holds this decision breaks, or a check that the hold it waits for is live). The intent's expiry
 * has the sweeper delete the object should the caller not manage to; an intent `deferredFor` live holds has
 * no expiry and keeps their marks, until the sweeper releases it when the last of them ends.
 */
export const eraseItem = (
  userId: string,
  item: ErasableItem,
  now: number,
  erasure: { deferredFor?: string[]; also?: WriteAction[] } = {},
): Promise<TransactionOutcome> =>
  transactRetrying([
    remove(libraryItemKey(item.itemGuid), {
      if: `userId = :user AND ${item.holdRevision === undefined ? 'attribute_not_exists(holdRevision)' : 'holdRevision = :revision'}`,
      values: { ':user': userId, ...(item.holdRevision === undefined ? {} : { ':revision': item.holdRevision }) },
    }),
    remove(libraryEntryKey(userId, libraryEntrySortKey(item)), { if: 'attribute_exists(PK)' }),
    remove(uploadKey(item.itemGuid)),
    put(
      erasureIntentKey(item.itemGuid),
      'ErasureIntent',
      {
        itemGuid: item.itemGuid,
        objectKey: item.objectKey,
        erasedAt: now,
        // The original is at its held key then (services/user-library-service.ts), which the lab's reads sign.
        ...(erasure.deferredFor ? { holds: erasure.deferredFor, heldCopy: true } : {}),
      },
      erasure.deferredFor ? {} : { expiresAt: now + ERASURE_SWEEP_AFTER_MS },
    ),
    ...(erasure.also ?? []),
  ]);

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
