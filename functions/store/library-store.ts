/**
 * The one place that reads and writes the image library's records: item records, anonymous users, builder
 * links, ingest intents and pending large-file uploads in the single table. The image bytes are in the
 * bucket (image-object-store.ts).
 *
 * Without transactions, a request's records are written in an order whose last write is the commit:
 * the ingest intent, objects (under `library/<anonymousUserId>/`), then the items and the builder link
 * (one BatchWriteItem), then the anonymous user that owns them. An item whose owner record does not exist
 * is uncommitted and reads as missing (see getCommittedItems), so a request that dies half way never
 * exposes half its images; its builder link names only such items, and its token has not been handed out.
 * What such a request leaves behind is swept once its intent (or its pending upload) expires: the TTL
 * deletion reaches the sweeper through the table's stream (services/library-sweep-service.ts).
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { batchGetItems, batchPutItems } from './batch.ts';
import { anonymousUserKey, builderLinkKey, ingestIntentKey, libraryItemKey, uploadKey } from './keys.ts';
import { fromItem, toItem, type TableKey } from './table.ts';
import { writeIf } from './writes.ts';
import type { LibraryItem } from '../domain/library.ts';
import type { StoredItem } from '../domain/library-read.ts';

export interface AnonymousUser {
  anonymousUserId: string;
  apiKeyId: string;
  itemGuids: string[];
  createdAt: number;
}

export interface BuilderLink {
  token: string;
  apiKeyId: string;
  itemGuids: string[];
  /** The anonymous users owning the items: one for a push or pull, several when /library/builder mixes requests. */
  anonymousUserIds: string[];
  createdAt: number;
}

/**
 * Written before a push or pull stores its first object; expires (TTL) when the request is long over. If
 * its anonymous user was never written by then, the sweeper removes what the request left behind.
 */
export interface IngestIntent {
  anonymousUserId: string;
  apiKeyId: string;
  token: string;
  createdAt: number;
}

export interface PendingUpload {
  itemGuid: string;
  apiKeyId: string;
  /** The anonymous user the completed upload will belong to; its library objects go under its prefix. */
  anonymousUserId: string;
  objectKey: string;
  expiresAt: number;
  /** Set while one complete call verifies the object; a stale claim (the call died) may be taken over. */
  claimedAt?: number;
  /** Set once verified: from then on the upload is decided, and a repeated complete finishes and answers the same. */
  result?: UploadResult;
}

export interface UploadResult {
  item: LibraryItem;
  token: string;
  createdAt: number;
}

/**
 * Every key here holds a fresh random guid or token, so a plain PutItem never meets another request's
 * record, and repeating it (a replayed upload completion) writes the same thing again.
 */
async function putRecord(key: TableKey, type: string, record: object, ttlAt?: number): Promise<void> {
  await dynamo.send(new PutCommand({ TableName: config.tableName, Item: toItem(key, type, record, ttlAt) }));
}

export const deleteRecord = (key: TableKey) =>
  dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: key }));

// ---- Item records, anonymous users, builder links ----

/** A request's items and its builder link in one round trip, before their owner (the commit point) exists. */
export const putItemsAndBuilderLink = (items: StoredItem[], link: BuilderLink) =>
  batchPutItems([
    ...items.map((item) => toItem(libraryItemKey(item.itemGuid), 'LibraryItem', item)),
    toItem(builderLinkKey(link.token), 'BuilderLink', link),
  ]);
export const deleteItem = (itemGuid: string) => deleteRecord(libraryItemKey(itemGuid));
export const putIngestIntent = (intent: IngestIntent, sweepAt: number) =>
  putRecord(ingestIntentKey(intent.anonymousUserId), 'IngestIntent', intent, sweepAt);
export const deleteIngestIntent = (anonymousUserId: string) => deleteRecord(ingestIntentKey(anonymousUserId));
export const putAnonymousUser = (user: AnonymousUser) =>
  putRecord(anonymousUserKey(user.anonymousUserId), 'AnonymousUser', user);
export const deleteAnonymousUser = (id: string) => deleteRecord(anonymousUserKey(id));
export const putBuilderLink = (link: BuilderLink) => putRecord(builderLinkKey(link.token), 'BuilderLink', link);
export const deleteBuilderLink = (token: string) => deleteRecord(builderLinkKey(token));

export async function anonymousUserExists(anonymousUserId: string): Promise<boolean> {
  const result = await dynamo.send(
    new GetCommand({
      TableName: config.tableName,
      Key: anonymousUserKey(anonymousUserId),
      ConsistentRead: true,
      ProjectionExpression: 'PK',
    }),
  );
  return result.Item !== undefined;
}

export async function getBuilderLink(token: string): Promise<BuilderLink | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: builderLinkKey(token), ConsistentRead: true }),
  );
  return result.Item ? fromItem<BuilderLink>(result.Item) : undefined;
}

/**
 * The item records among `itemGuids`, committed or not, in no particular order (one BatchGetItem per 100).
 * Only for guids that name committed items by construction (a builder link's, see services/library-read-service.ts).
 */
export const getItems = async (itemGuids: string[]): Promise<StoredItem[]> =>
  (await batchGetItems(itemGuids.map(libraryItemKey))).map((record) => fromItem<StoredItem>(record));

/** The committed items among `itemGuids` (two BatchGetItem rounds: the items, then their owners). */
export async function getCommittedItems(itemGuids: string[]): Promise<StoredItem[]> {
  const items = await getItems(itemGuids);
  const ownerIds = [...new Set(items.map((item) => item.ownerId))];
  const owners = new Set(
    (await batchGetItems(ownerIds.map(anonymousUserKey))).map(
      (record) => fromItem<AnonymousUser>(record).anonymousUserId,
    ),
  );
  return items.filter((item) => owners.has(item.ownerId));
}

// ---- Pending large-file uploads ----

export const putUpload = (upload: PendingUpload, sweepAt: number) =>
  putRecord(uploadKey(upload.itemGuid), 'PendingUpload', upload, sweepAt);

export async function getUpload(itemGuid: string): Promise<PendingUpload | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: uploadKey(itemGuid), ConsistentRead: true }),
  );
  return result.Item ? fromItem<PendingUpload>(result.Item) : undefined;
}

/** One conditional UpdateItem on the upload record; false when the condition does not hold. */
function updateUploadIf(
  itemGuid: string,
  update: string,
  condition: string,
  values: Record<string, unknown>,
): Promise<boolean> {
  return writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: uploadKey(itemGuid),
      UpdateExpression: update,
      ConditionExpression: condition,
      ExpressionAttributeNames: { '#result': 'result' },
      ExpressionAttributeValues: values,
    }),
  );
}

/** Takes the upload for one complete call (its claim is `now`); false when another call holds a fresh claim or it is decided. */
export const claimUpload = (itemGuid: string, now: number, staleBefore: number): Promise<boolean> =>
  updateUploadIf(
    itemGuid,
    'SET claimedAt = :now',
    'attribute_exists(PK) AND attribute_not_exists(#result) AND (attribute_not_exists(claimedAt) OR claimedAt < :stale)',
    {
      ':now': now,
      ':stale': staleBefore,
    },
  );

/** Gives the claim back (the object was refused), unless another call has taken it over meanwhile. */
export const releaseUpload = (itemGuid: string, claimedAt: number): Promise<boolean> =>
  updateUploadIf(itemGuid, 'REMOVE claimedAt', 'claimedAt = :claimedAt AND attribute_not_exists(#result)', {
    ':claimedAt': claimedAt,
  });

/** Decides the upload: records what it became, only while the claim is still this call's. False when it was taken over. */
export const recordUploadResult = (itemGuid: string, claimedAt: number, result: UploadResult): Promise<boolean> =>
  updateUploadIf(itemGuid, 'SET #result = :result', 'claimedAt = :claimedAt AND attribute_not_exists(#result)', {
    ':result': result,
    ':claimedAt': claimedAt,
  });
