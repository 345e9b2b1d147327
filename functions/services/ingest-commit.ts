/**
 * Commit and roll back of one push, pull or completed upload. The ingest intent, then the objects, then
 * the commit: one transaction of all its records (writeCommit). A request that fails before its commit
 * deletes its objects (rollBackObjects); one that dies leaves them to the sweeper, which finds them by the
 * intent once it expires (library-sweep-service.ts).
 */
import { SWEEP_AFTER_MS, type LibraryItem } from '../domain/library.ts';
import { newGuid, newSecretId } from '../shared/ids.ts';
import { logger } from '../shared/powertools.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { METRIC } from '../shared/metric-names.ts';
import * as library from '../store/library-store.ts';
import * as objects from '../store/image-object-store.ts';
import { recordEvent } from '../store/outbox-store.ts';
import type { WriteAction } from '../store/transaction.ts';
import type { CommitOutcome } from '../store/library-store.ts';
import { builderUrl } from './builder-service.ts';
import { itemsAddedEvent } from '../contracts/library-events.ts';

export interface IngestResult {
  /** In request order. */
  items: LibraryItem[];
  productBuilderUrl: string;
  anonymousUserId: string;
}

/** One image stored in the bucket, not committed yet. */
export interface StoredImage {
  item: LibraryItem;
  objectKey: string;
  fileName?: string;
}

/** What names a request's records: the anonymous user it creates and the builder link token it hands out. */
export interface IngestIdentity {
  apiKeyId: string;
  anonymousUserId: string;
  token: string;
  createdAt: number;
}

/** One push or pull under way. */
export interface Ingest extends IngestIdentity {
  /**
   * Writes the ingest intent once, when the first bytes of an image have gone up (a request refused before storing
   * anything writes none); no object may exist before it settles. Its failure is reported to whoever awaits it.
   */
  writeIntent: () => Promise<void>;
  /** Whether writeIntent was called: then the rollback deletes the intent last. */
  intentStarted(): boolean;
  /** Every object key an upload was started for. */
  objectKeys: string[];
}

export function newIngest(apiKeyId: string): Ingest {
  const identity = { apiKeyId, anonymousUserId: newGuid(), token: newSecretId(), createdAt: Date.now() };
  let written: Promise<void> | undefined;
  const write = () => {
    const put = library.putIngestIntent(identity, identity.createdAt + SWEEP_AFTER_MS);
    // Awaited by the uploads it gates, possibly only once their parts are up: not an unhandled rejection meanwhile.
    put.catch(() => {});
    return put;
  };
  return {
    ...identity,
    writeIntent: () => (written ??= write()),
    intentStarted: () => written !== undefined,
    objectKeys: [],
  };
}

/**
 * Deletes what a request stored before it failed (it committed nothing): its objects, then its intent. A
 * failed delete stops it there; the intent stays, and the sweeper finds what is left once it expires.
 */
export async function rollBackObjects(ingest: Ingest): Promise<void> {
  try {
    const deleted = await Promise.allSettled(
      ingest.objectKeys.map((objectKey) => objects.deleteImageObject(objectKey)),
    );
    const failed = deleted.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    if (ingest.intentStarted()) await library.deleteIngestIntent(ingest.anonymousUserId);
  } catch (error) {
    logger.error('library rollback stopped; the sweeper removes the rest once the intent expires', {
      reason: String(error),
    });
  }
}

/**
 * After writeCommit threw (the transaction's outcome unknown: it may have committed before the answer was
 * lost): whether the request is known to have committed. False also when even that cannot be read.
 */
export const committedAfterFailure = (ingest: IngestIdentity): Promise<boolean> =>
  library.anonymousUserExists(ingest.anonymousUserId).catch(() => false);

/**
 * The commit of a push, pull or completed upload (the images are in the bucket already): its items, its
 * builder link (the token), its anonymous user and the `LibraryItemsAdded` event's outbox record, one
 * TransactWriteItems, so they exist all or none. Safe to repeat with the same identity and images: a
 * repeat writes nothing and answers `repeated` (store/library-store.ts commitRecords). `also`: actions
 * that must commit with it, e.g. an upload's decision; `refused` when one of their conditions failed.
 * At most 97 images (LIBRARY_MAX_ITEMS' ceiling), fewer by the length of `also`: a transaction holds 100 actions.
 */
export async function writeCommit(
  ingest: IngestIdentity,
  images: StoredImage[],
  also: WriteAction[] = [],
): Promise<CommitOutcome> {
  const { apiKeyId, anonymousUserId, token, createdAt } = ingest;
  const itemGuids = images.map((image) => image.item.itemGuid);
  const items = images.map((image) => ({
    ...image.item,
    apiKeyId,
    ownerId: anonymousUserId,
    objectKey: image.objectKey,
    createdAt,
    ...(image.fileName !== undefined ? { fileName: image.fileName } : {}),
  }));
  return library.commitRecords(
    {
      items,
      link: { token, apiKeyId, itemGuids, anonymousUserIds: [anonymousUserId], createdAt },
      user: { anonymousUserId, apiKeyId, itemGuids, createdAt },
    },
    [recordEvent(itemsAddedEvent(ingest, itemGuids)), ...also],
  );
}

export function recordMetrics(items: LibraryItem[]): void {
  emitMetrics({
    [METRIC.ImagesStored]: items.length,
    [METRIC.ImageBytesStored]: items.reduce((sum, item) => sum + item.size, 0),
  });
}

export const resultOf = (ingest: { anonymousUserId: string; token: string }, images: StoredImage[]): IngestResult => ({
  items: images.map((image) => image.item),
  productBuilderUrl: builderUrl(ingest.token),
  anonymousUserId: ingest.anonymousUserId,
});
