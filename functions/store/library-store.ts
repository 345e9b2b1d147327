/**
 * The one place that reads and writes the image library's records: item records, anonymous users, builder
 * links, ingest intents and pending large-file uploads in the single table. The image bytes are in the
 * bucket (image-object-store.ts); the signed-in user's records are in user-library-store.ts.
 *
 * A request's records are created together in one TransactWriteItems (commitRecords): its items, its
 * builder link and its anonymous user exist all or none, so every record that exists is committed. The
 * objects cannot join the transaction: they go up first, under `library/<anonymousUserId>/`, after an
 * ingest intent (or the pending upload) that the sweeper finds them by if the commit never happens
 * (services/library-sweep-service.ts).
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { retryOnConflict } from '../shared/retry.ts';
import { batchGetItems } from './batch.ts';
import { anonymousUserKey, builderLinkKey, ingestIntentKey, libraryItemKey, uploadKey } from './keys.ts';
import { fromItem, toItem, type TableKey } from './table.ts';
import { check, create, transact, TransactionConflictError, update, type WriteAction } from './transaction.ts';
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
 * its anonymous user was never written by then, the sweeper removes the objects the request left behind.
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
  /** Set by the commit's own transaction: from then on a repeated complete answers it and writes nothing. */
  result?: UploadResult;
}

export interface UploadResult {
  item: LibraryItem;
  token: string;
  createdAt: number;
}

/** What one request commits: its items, its builder link and its anonymous user. */
export interface IngestRecords {
  items: StoredItem[];
  link: BuilderLink;
  user: AnonymousUser;
}

/**
 * `committed`: this call created the records. `repeated`: they existed already (the request's anonymous
 * user is there: an earlier call of the same request committed), nothing was written. `refused`: one of
 * the caller's own `also` conditions failed, nothing was written.
 */
export type CommitOutcome = 'committed' | 'repeated' | 'refused';

/**
 * One transaction, sent again while another transaction touching the same records at the same moment
 * cancels it (nothing was written then; store/transaction.ts).
 */
export const transactRetrying = (actions: WriteAction[]) =>
  retryOnConflict(
    () => transact(actions),
    (error) => error instanceof TransactionConflictError,
  );

/**
 * Creates a request's records in one TransactWriteItems, with `also` (the domain event's outbox record, a
 * pending upload's decision) in the same transaction. Every record is created only if new: the keys are a
 * fresh anonymous user id, a fresh token and fresh item guids, so a failed creation means this request
 * committed before, and a repeat changes nothing (it cannot undo a claim or bring back an erased item).
 */
export async function commitRecords(records: IngestRecords, also: WriteAction[] = []): Promise<CommitOutcome> {
  const { items, link, user } = records;
  const actions = [
    create(anonymousUserKey(user.anonymousUserId), 'AnonymousUser', user),
    create(builderLinkKey(link.token), 'BuilderLink', link),
    ...items.map((item) => create(libraryItemKey(item.itemGuid), 'LibraryItem', item)),
    ...also,
  ];
  const outcome = await transactRetrying(actions);
  if (outcome.committed) return 'committed';
  if (outcome.failed.some((failure) => failure.index === 0)) return 'repeated';
  const firstOwn = actions.length - also.length;
  if (outcome.failed.every((failure) => failure.index >= firstOwn)) return 'refused';
  throw new Error(`library commit of ${user.anonymousUserId} met records of another request`);
}

/**
 * A new builder link over existing items, created only while each of them still exists and belongs to
 * `apiKeyId` (a ConditionCheck each, in the same transaction). Answers the guids that failed their check
 * (nothing was written then); none when the link was created.
 */
export async function createBuilderLink(link: BuilderLink): Promise<string[]> {
  const outcome = await transactRetrying([
    create(builderLinkKey(link.token), 'BuilderLink', link),
    ...link.itemGuids.map((itemGuid) =>
      check(libraryItemKey(itemGuid), { if: 'apiKeyId = :apiKeyId', values: { ':apiKeyId': link.apiKeyId } }),
    ),
  ]);
  return outcome.committed ? [] : outcome.failed.map((failure) => link.itemGuids[failure.index - 1] as string);
}

export async function putIngestIntent(intent: IngestIntent, sweepAt: number): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(ingestIntentKey(intent.anonymousUserId), 'IngestIntent', intent, sweepAt),
    }),
  );
}

export const deleteIngestIntent = (anonymousUserId: string) =>
  dynamo.send(new DeleteCommand({ TableName: config.tableName, Key: ingestIntentKey(anonymousUserId) }));

async function getRecord<T>(key: TableKey, projection?: string): Promise<T | undefined> {
  const result = await dynamo.send(
    new GetCommand({
      TableName: config.tableName,
      Key: key,
      ConsistentRead: true,
      ...(projection ? { ProjectionExpression: projection } : {}),
    }),
  );
  return result.Item ? fromItem<T>(result.Item) : undefined;
}

/** Whether the request of this anonymous user committed (its records exist). */
export const anonymousUserExists = async (anonymousUserId: string): Promise<boolean> =>
  (await getRecord(anonymousUserKey(anonymousUserId), 'PK')) !== undefined;

export const getBuilderLink = (token: string) => getRecord<BuilderLink>(builderLinkKey(token));

/** One item record (any committed item; an erased one is gone). */
export const getItem = <T extends StoredItem = StoredItem>(itemGuid: string) => getRecord<T>(libraryItemKey(itemGuid));

/** The item records among `itemGuids`, in no particular order (one BatchGetItem per 100); every one is committed. */
export const getItems = async (itemGuids: string[]): Promise<StoredItem[]> =>
  (await batchGetItems(itemGuids.map(libraryItemKey))).map((record) => fromItem<StoredItem>(record));

// ---- Pending large-file uploads ----

export const putUpload = (upload: PendingUpload, sweepAt: number) =>
  dynamo.send(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(uploadKey(upload.itemGuid), 'PendingUpload', upload, sweepAt),
    }),
  );

export const getUpload = (itemGuid: string) => getRecord<PendingUpload>(uploadKey(itemGuid));

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

/**
 * The upload's decision, as an action of its commit's transaction: records what it became, only while the
 * claim is still this call's (commitRecords answers `refused` when another call took it over).
 */
export const decideUpload = (itemGuid: string, claimedAt: number, result: UploadResult): WriteAction =>
  update(uploadKey(itemGuid), 'SET #result = :result', {
    values: { ':result': result },
    condition: {
      if: 'claimedAt = :claimedAt AND attribute_not_exists(#result)',
      values: { ':claimedAt': claimedAt },
      names: { '#result': 'result' },
    },
  });
