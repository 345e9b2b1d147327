/**
 * Library ingest: store images (push, pull) all or nothing under a new anonymous user, with a product
 * builder URL for them (builder-service.ts). Handlers call these; they know nothing of HTTP.
 *
 * Anonymous users: every push, pull or completed upload creates one (a fresh guid) that owns exactly the
 * items of that call. It has no credential of its own: it is identified afterwards by the unguessable
 * token in the ProductBuilderUrl (`{CHECKOUT_URL}/builder/<token>`). The builder site resolves the token
 * (store: getBuilderLink) to the item guids, the anonymous user(s) owning them and the API key that
 * uploaded them; whoever holds the URL acts as that anonymous user.
 */
import type { Readable } from 'node:stream';
import { failedItemsError, tooManyItems, type ItemFailure } from '../domain/library.ts';
import { DomainError, badRequest } from '../shared/errors.ts';
import { newGuid } from '../shared/ids.ts';
import { config } from '../shared/config.ts';
import { settleBounded } from '../shared/settle-bounded.ts';
import { ImageMeter, clientError, sniffStream } from '../library/image-stream.ts';
import * as objects from '../store/image-object-store.ts';
import {
  committedAfterFailure,
  newIngest,
  recordMetrics,
  resultOf,
  rollBackObjects,
  writeCommit,
  type Ingest,
  type IngestResult,
  type StoredImage,
} from './ingest-commit.ts';

/**
 * One image of a request. `open` is called once, when a concurrency slot is free, and must give the
 * image's bytes as a byte stream. A failure that is the client's (bad URL, refused address, too large)
 * is thrown by `open`, or emitted by the stream, as a DomainError: its message becomes that index's Reason.
 * Any other error is treated as the service's own and fails the whole request with a 500.
 * The stream is destroyed when its bytes are not wanted (not an image, over the cap, request failed).
 */
export interface ImageSource {
  /** Zero-based position in the request: results come back in this order, failures are reported by it. */
  index: number;
  open: () => Promise<Readable> | Readable;
  /** The client's file name (multipart) or the URL's last segment (pull), kept on the item record. */
  declaredName?: string;
}

export interface IngestOptions {
  /** Largest image from one source; more is a 413 failure of that index. Default: UPLOAD_MAX_BYTES. */
  maxBytes?: number;
  /** Sources read and stored at the same time. Default 4. */
  concurrency?: number;
}

async function storeImage(source: ImageSource, maxBytes: number, ingest: Ingest): Promise<StoredImage> {
  const itemGuid = newGuid();
  const objectKey = objects.libraryObjectKey(ingest.anonymousUserId, itemGuid);
  const { mimeType, body } = await sniffStream(await source.open());
  const meter = new ImageMeter(maxBytes, mimeType);
  const metered = body.pipe(meter);
  body.on('error', (error) => meter.destroy(error));
  // A source may fail after the upload gave up reading: the cause stays readable as `errored`, and must not crash the process.
  meter.on('error', () => {});
  let md5FromS3: string | undefined;
  // Even a failed upload may have stored its object (an answer lost after S3 took it): the rollback deletes every key tried.
  ingest.objectKeys.push(objectKey);
  try {
    // The intent is written while the bytes go up, once the first have gone out: the upload holds back what
    // makes the object exist (its last byte, or the multipart completion) until the intent is durable, so an
    // object never exists without the intent the sweeper finds it by, and the push waits for neither.
    md5FromS3 = await objects.putImageObject(objectKey, metered, mimeType, {
      contentMd5: meter.contentMd5,
      mayStore: ingest.writeIntent,
    });
  } catch (error) {
    body.destroy();
    // A failed intent fails the upload it gates: that failure is the cause, not the aborted upload.
    if (ingest.intentStarted()) await ingest.writeIntent();
    throw clientError(error, meter, body);
  }
  const item = { itemGuid, mimeType, size: meter.byteCount, md5: md5FromS3 ?? meter.md5(), ...meter.imageMetadata() };
  return { item, objectKey, ...(source.declaredName !== undefined ? { fileName: source.declaredName } : {}) };
}

/**
 * Stores every source's image in the bucket and the library, all or nothing, under a new anonymous user,
 * and returns the items in request order with a builder URL for exactly them. When any source fails,
 * nothing of the request remains and the error lists each failed index (details `Failures`).
 */
export async function ingestImages(
  owner: { apiKeyId: string },
  sources: Iterable<ImageSource> | AsyncIterable<ImageSource>,
  options: IngestOptions = {},
): Promise<IngestResult> {
  const maxBytes = options.maxBytes ?? config.uploadMaxBytes;
  const ingest = newIngest(owner.apiKeyId);
  const maxItems = config.libraryMaxItems;
  const limits = { concurrency: options.concurrency ?? 4, maxItems, tooMany: () => tooManyItems(maxItems) };
  const { settled, count, listError } = await settleBounded(sources, limits, (source) =>
    storeImage(source, maxBytes, ingest),
  );
  const images = settled.flatMap(({ outcome }) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const rejected = settled.flatMap(({ index, outcome }) =>
    outcome.status === 'rejected' ? [{ index, reason: outcome.reason as unknown }] : [],
  );
  const internal = rejected.find(({ reason }) => !(reason instanceof DomainError));
  if (listError !== undefined || rejected.length > 0 || count === 0) {
    await rollBackObjects(ingest);
    if (internal) throw internal.reason;
    if (listError !== undefined) throw listError;
    if (count === 0) throw badRequest('NoImages', 'The request carries no image.');
    const failures: ItemFailure[] = rejected.map(({ index, reason }) => ({ index, error: reason as DomainError }));
    throw failedItemsError(failures, count);
  }

  try {
    await writeCommit(ingest, images);
  } catch (error) {
    // The transaction's outcome is unknown (its answer may be lost after it committed): the objects stay
    // for the sweeper, which keeps them if the request committed after all and deletes them otherwise.
    if (!(await committedAfterFailure(ingest))) throw error;
  }
  // The intent stays until it expires: deleting it would cost every push a round trip, and the sweeper
  // finds this request committed.
  recordMetrics(images.map((image) => image.item));
  return resultOf(ingest, images);
}
