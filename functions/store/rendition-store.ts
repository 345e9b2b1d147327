/**
 * The one place that reads and writes renditions: their objects in the bucket (beside the original, see
 * domain/renditions.ts) and their state on the item record, and on its copy in the user's library
 * (`LIBUSER#<user>`, store/user-library-store.ts) once the item was claimed. The decision (Ready or Failed)
 * is one TransactWriteItems: the item record, its library entry when it has one, and the
 * LibraryItemRenditionsDecided event's outbox record, so a reader never sees them disagree and the event
 * exists exactly when the decision committed.
 */
import type { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { s3 } from '../shared/clients/s3.ts';
import { config } from '../shared/config.ts';
import { libraryEntryKey, libraryEntrySortKey, libraryItemKey } from './keys.ts';
import { fromItem } from './table.ts';
import { deleteImageObject } from './image-object-store.ts';
import { writeIf } from './writes.ts';
import { readExactly } from '../shared/read-exactly.ts';
import { check, transact, update } from './transaction.ts';
import { recordEvent } from './outbox-store.ts';
import { renditionsDecidedEvent } from '../contracts/library-events.ts';
import type { StoredItem } from '../domain/library-read.ts';
import type { RenditionsState } from '../domain/renditions.ts';

/** An item record as the renditions function reads it: who holds it decides whether a library entry copies it. */
export interface RenderedItem extends StoredItem {
  userId?: string;
  /** Times the renditions function started on it without deciding (a crash or a time-out ends a start unrecorded). */
  renditionStarts?: number;
}

/** The item record (consistent read); undefined once it was deleted. */
export async function getItemRecord(itemGuid: string): Promise<RenderedItem | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: libraryItemKey(itemGuid), ConsistentRead: true }),
  );
  return result.Item ? fromItem<RenderedItem>(result.Item) : undefined;
}

/**
 * Counts a start on the item's record (`by` 1), or its end without a decision (-1: a failure the queue
 * retries), while its renditions are undecided: a start that crashes the function or runs it out of time
 * stays counted. False when the item is gone or decided meanwhile.
 */
export async function countRenditionStart(itemGuid: string, by: 1 | -1 = 1): Promise<boolean> {
  return writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: libraryItemKey(itemGuid),
      UpdateExpression: 'ADD renditionStarts :by',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(renditions)',
      ExpressionAttributeValues: { ':by': by },
    }),
  );
}

/**
 * The original's bytes, whole: decoders want random access (a TIFF's directory may follow its pixels). Read
 * once into a buffer of the recorded size; an object of another size is no original of this item.
 */
export async function readOriginal(objectKey: string, size: number): Promise<Buffer> {
  const result = await s3.send(new GetObjectCommand({ Bucket: config.bucketName, Key: objectKey }));
  const body = result.Body as Readable | undefined;
  if (!body || result.ContentLength !== size) {
    body?.destroy();
    throw new Error(`the original ${objectKey} holds ${result.ContentLength} bytes, not the ${size} recorded`);
  }
  return readExactly(body, size, `the original ${objectKey}`);
}

export async function putRenditionObject(objectKey: string, bytes: Buffer, contentType: string): Promise<void> {
  await s3.send(
    new PutObjectCommand({ Bucket: config.bucketName, Key: objectKey, Body: bytes, ContentType: contentType }),
  );
}

/** Deletes rendition objects (deleting one that is not there succeeds). */
export async function deleteRenditionObjects(objectKeys: string[]): Promise<void> {
  await Promise.all(objectKeys.map(deleteImageObject));
}

/**
 * Writes the renditions' state where the item is read from, with its event. `keepReady`: only if the state is not Ready
 * already (a late failure never undoes renditions a duplicate delivery made). The item must still be held
 * by whom it was read with (nobody, or that user), so a claim racing this write is noticed. 'refused' when a
 * condition of the item did not hold (it is gone, changed hands or is Ready): the caller reads it again.
 * 'entryMissing': the item is held as read, but the claim that holds it has not written the library entry
 * yet (it writes the item first).
 */
export async function recordRenditions(
  item: RenderedItem,
  state: RenditionsState,
  options: { keepReady: boolean },
): Promise<'written' | 'refused' | 'entryMissing'> {
  const holder = item.userId === undefined ? 'attribute_not_exists(userId)' : 'userId = :user';
  const notReady = options.keepReady ? ' AND (attribute_not_exists(renditions) OR renditions.#status <> :ready)' : '';
  const itemUpdate = update(libraryItemKey(item.itemGuid), 'SET renditions = :renditions REMOVE renditionStarts', {
    values: { ':renditions': state },
    condition: {
      if: `attribute_exists(PK) AND ${holder}${notReady}`,
      values: {
        ...(item.userId !== undefined ? { ':user': item.userId } : {}),
        ...(options.keepReady ? { ':ready': 'Ready' } : {}),
      },
      ...(options.keepReady ? { names: { '#status': 'status' } } : {}),
    },
  });
  const event = recordEvent(renditionsDecidedEvent(item, state, Date.now()));
  if (item.userId === undefined) {
    const outcome = await transact([itemUpdate, event]);
    return outcome.committed ? 'written' : 'refused';
  }
  // The user's library entry copies the record: both change in one transaction, or neither does.
  const outcome = await transact([
    itemUpdate,
    update(libraryEntryKey(item.userId, libraryEntrySortKey(item)), 'SET renditions = :renditions', {
      values: { ':renditions': state },
      condition: { if: 'attribute_exists(PK)' },
    }),
    event,
  ]);
  if (outcome.committed) return 'written';
  return outcome.failed.every((failure) => failure.index === 1) ? 'entryMissing' : 'refused';
}

/**
 * Writes the item record's renditions state onto the user's library entry, only while the record still
 * holds that state for that user (a renditions write meanwhile fails it): the operator's repair of an
 * entry that disagrees with its item. False when a condition did not hold.
 */
export async function copyRenditionsToEntry(
  item: RenderedItem & { userId: string; renditions: RenditionsState },
): Promise<boolean> {
  const values = { ':user': item.userId, ':renditions': item.renditions };
  const outcome = await transact([
    check(libraryItemKey(item.itemGuid), { if: 'userId = :user AND renditions = :renditions', values }),
    update(libraryEntryKey(item.userId, libraryEntrySortKey(item)), 'SET renditions = :renditions', {
      values: { ':renditions': item.renditions },
      condition: { if: 'attribute_exists(PK)' },
    }),
  ]);
  return outcome.committed;
}
