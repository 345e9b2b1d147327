/**
 * Commit and roll back of one push, pull or completed upload. Without transactions, a request's records
 * are written in an order whose last write is the commit (store/library-store.ts): the ingest intent,
 * objects, the items and the builder link, then the anonymous user that owns them. What a request leaves
 * behind when it dies half way is swept once its intent expires (library-sweep-service.ts).
 */
import { SWEEP_AFTER_MS, type LibraryItem } from '../domain/library.ts';
import { newGuid, newSecretId } from '../shared/ids.ts';
import { logger, metrics } from '../shared/powertools.ts';
import { METRIC } from '../shared/metric-names.ts';
import * as library from '../store/library-store.ts';
import * as objects from '../store/image-object-store.ts';
import { builderUrl } from './builder-service.ts';
import { publishEvent } from '../shared/events.ts';
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
   * Writes the ingest intent once, when the first image starts going up (a request refused before storing
   * anything writes none); no object may exist before it settles. Its failure is reported to whoever awaits it.
   */
  writeIntent(): Promise<void>;
  /** Whether writeIntent was called: then rollback deletes the intent last. */
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
 * Undoes a request stage by stage, each only after the one before fully succeeded: owner, then records,
 * then objects, then the intent. A failed delete stops it there, and what is left is what the sweeper
 * finds from the intent: an item record exists only while its object does, and objects are listed by the
 * request's prefix.
 */
async function rollBack(...stages: (() => Promise<unknown>)[][]): Promise<void> {
  for (const stage of stages) {
    const results = await Promise.allSettled(stage.map((remove) => remove()));
    const failed = results.filter((result) => result.status === 'rejected');
    if (failed.length > 0) {
      logger.error('library rollback stopped; the sweeper removes the rest once the intent expires', {
        failed: failed.length,
        reason: String((failed[0] as PromiseRejectedResult).reason),
      });
      return;
    }
  }
}

const objectsOf = (ingest: Ingest) => ingest.objectKeys.map((objectKey) => () => objects.deleteImageObject(objectKey));
const intentOf = (ingest: Ingest) =>
  ingest.intentStarted() ? [() => library.deleteIngestIntent(ingest.anonymousUserId)] : [];

/** Removes what a failed request stored before its commit: its objects, then its intent. */
export const rollBackObjects = (ingest: Ingest): Promise<void> => rollBack(objectsOf(ingest), intentOf(ingest));

/** Removes a request whose commit failed part way: owner first (the items are uncommitted even if a later delete fails), records, objects, intent. */
export const rollBackCommit = (ingest: Ingest, images: StoredImage[]): Promise<void> =>
  rollBack(
    [() => library.deleteAnonymousUser(ingest.anonymousUserId)],
    [
      ...images.map((image) => () => library.deleteItem(image.item.itemGuid)),
      () => library.deleteBuilderLink(ingest.token),
    ],
    objectsOf(ingest),
    intentOf(ingest),
  );

/**
 * Items and the builder link in one round trip, then their owner: the commit point, after which the items
 * read as present. Every write is safe to repeat.
 */
export async function writeCommit(ingest: IngestIdentity, images: StoredImage[]): Promise<void> {
  const { apiKeyId, anonymousUserId, token, createdAt } = ingest;
  const itemGuids = images.map((image) => image.item.itemGuid);
  await library.putItemsAndBuilderLink(
    images.map((image) => ({
      ...image.item,
      apiKeyId,
      ownerId: anonymousUserId,
      objectKey: image.objectKey,
      createdAt,
      ...(image.fileName !== undefined ? { fileName: image.fileName } : {}),
    })),
    { token, apiKeyId, itemGuids, anonymousUserIds: [anonymousUserId], createdAt },
  );
  await library.putAnonymousUser({ anonymousUserId, apiKeyId, itemGuids, createdAt });
  await announceItems(anonymousUserId, itemGuids);
}

/**
 * `LibraryItemsAdded` for the renditions function, right after the commit point. Its failure does not fail
 * the request: the items are committed and readable, their renditions stay Pending, and
 * `npm run -s renditions -- --missing` makes them.
 */
async function announceItems(anonymousUserId: string, itemGuids: string[]): Promise<void> {
  try {
    await publishEvent(itemsAddedEvent(anonymousUserId, itemGuids, Date.now()));
  } catch (error) {
    logger.error('LibraryItemsAdded not published; renditions stay Pending until the backfill', {
      anonymousUserId,
      error: error as Error,
    });
  }
}

export function recordMetrics(items: LibraryItem[]): void {
  metrics.addMetric(METRIC.ImagesStored, 'Count', items.length);
  metrics.addMetric(
    METRIC.ImageBytesStored,
    'Bytes',
    items.reduce((sum, item) => sum + item.size, 0),
  );
}

export const resultOf = (ingest: { anonymousUserId: string; token: string }, images: StoredImage[]): IngestResult => ({
  items: images.map((image) => image.item),
  productBuilderUrl: builderUrl(ingest.token),
  anonymousUserId: ingest.anonymousUserId,
});
