/**
 * Library use cases: store images (push, pull, large-file upload) all or nothing under a new anonymous
 * user, with a product builder URL for them (builder-service.ts). Handlers call these; they know nothing of HTTP.
 *
 * Anonymous users: every push, pull or completed upload creates one (a fresh guid) that owns exactly the
 * items of that call. It has no credential of its own: it is identified afterwards by the unguessable
 * token in the ProductBuilderUrl (`{CHECKOUT_URL}/builder/<token>`). The builder site resolves the token
 * (store: getBuilderLink) to the item guids, the anonymous user(s) owning them and the API key that
 * uploaded them; whoever holds the URL acts as that anonymous user.
 */
import { createHash } from 'node:crypto';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ACCEPTED_IMAGE_TYPES,
  ActiveContentScanner,
  SNIFF_BYTES,
  failedItemsError,
  sniffImageType,
  tooManyItems,
  type ItemFailure,
  type LibraryItem,
} from '../domain/library.ts';
import { DomainError, badRequest, conflict, notFound, payloadTooLarge, unsupportedMediaType } from '../shared/errors.ts';
import { newGuid, newSecretId } from '../shared/ids.ts';
import { config } from '../shared/config.ts';
import { logger, metrics } from '../shared/powertools.ts';
import { METRIC } from '../shared/metric-names.ts';
import * as library from '../store/library-store.ts';
import { builderUrl } from './builder-service.ts';

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

export interface IngestResult {
  /** In request order. */
  items: LibraryItem[];
  productBuilderUrl: string;
  anonymousUserId: string;
}

/** Where an image too large for push or pull can go instead. */
export const largeFileHint = () =>
  `Upload larger images (up to ${config.uploadMaxBytes} bytes) with POST /library/upload and POST /library/upload/{ItemGuid}/complete.`;

export const imageTooLarge = (maxBytes: number) => payloadTooLarge(`The image is over ${maxBytes} bytes. ${largeFileHint()}`);

const polyglot = () => unsupportedMediaType('The file starts like an image but carries markup or script (a polyglot); it is not stored.');

const notAnImage = (length: number) =>
  unsupportedMediaType(length === 0 ? 'The file is empty.' : `The bytes are not an accepted image (${ACCEPTED_IMAGE_TYPES}), whatever the declared content type.`);

// ---- Streaming: sniff, measure ----

/** Reads just enough leading bytes to know the type; the returned body replays them, then the rest. */
async function sniffStream(stream: Readable): Promise<{ mimeType: string; body: Readable }> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let length = 0;
  while (length < SNIFF_BYTES) {
    const next = await chunks.next();
    if (next.done) break;
    head.push(next.value);
    length += next.value.length;
  }
  const mimeType = sniffImageType(Buffer.concat(head));
  if (mimeType === undefined) {
    stream.destroy();
    throw notAnImage(length);
  }
  async function* replay() {
    yield* head;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { mimeType, body: Readable.from(replay(), { objectMode: false }) };
}

/**
 * Counts and hashes bytes passing through; fails with a 413 the moment they exceed `maxBytes`, and with a
 * 415 when they carry markup or script behind the image header (a polyglot). A body that comes as one
 * chunk (a pushed image: the request body is decoded whole) is hashed only when its MD5 is asked for:
 * S3 reports the MD5 of what it stored in one PutObject, and the 4 MB hash is then not needed at all.
 */
class ImageMeter extends Transform {
  // Not named `size`: SDK body helpers read a numeric `body.size` as the body's length (Blob detection)
  // and would then expect zero parts from a stream of any size.
  byteCount = 0;
  private readonly hash = createHash('md5');
  /** The first chunk while it is the only one, not hashed yet. */
  private unhashed: Buffer | undefined;
  private chunks = 0;
  /** Set once every byte is hashed. */
  private digest: Buffer | undefined;
  private readonly markup = new ActiveContentScanner();
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    super();
    this.maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void): void {
    this.byteCount += chunk.length;
    if (this.byteCount > this.maxBytes) return done(imageTooLarge(this.maxBytes));
    if (this.markup.foundIn(chunk)) return done(polyglot());
    if (this.chunks++ === 0) this.unhashed = chunk;
    else {
      this.hashUnhashed();
      this.hash.update(chunk);
    }
    done(null, chunk);
  }

  override _flush(done: () => void): void {
    if (this.unhashed === undefined) this.digest = this.hash.digest();
    done();
  }

  private hashUnhashed(): void {
    if (this.unhashed === undefined) return;
    this.hash.update(this.unhashed);
    this.unhashed = undefined;
  }

  /** 32 uppercase hex, after the last byte (a one-chunk body is hashed now). */
  md5(): string {
    if (this.digest === undefined) {
      this.hashUnhashed();
      this.digest = this.hash.digest();
    }
    return this.digest.toString('hex').toUpperCase();
  }

  /** The MD5 as a Content-MD5 header (base64) once the last byte has passed; undefined for a one-chunk body, not hashed yet. */
  readonly contentMd5 = (): string | undefined => this.digest?.toString('base64');
}

/** The DomainError behind a stream failure: the one a source or the meter raised, not the SDK's wrapping of it. */
function clientError(error: unknown, ...streams: Readable[]): unknown {
  for (const stream of streams) {
    const cause = (stream as Readable & { errored?: unknown }).errored;
    if (cause instanceof DomainError) return cause;
  }
  return error;
}

interface StoredImage {
  item: LibraryItem;
  objectKey: string;
  fileName?: string;
}

async function storeImage(source: ImageSource, maxBytes: number, ingest: Ingest): Promise<StoredImage> {
  const itemGuid = newGuid();
  const objectKey = library.libraryObjectKey(ingest.anonymousUserId, itemGuid);
  const { mimeType, body } = await sniffStream(await source.open());
  const meter = new ImageMeter(maxBytes);
  const metered = body.pipe(meter);
  body.on('error', (error) => meter.destroy(error));
  // A source may fail after the upload gave up reading: the cause stays readable as `errored`, and must not crash the process.
  meter.on('error', () => {});
  let md5FromS3: string | undefined;
  try {
    await ingest.writeIntent();
    // Even a failed upload may have stored its object (an answer lost after S3 took it): the rollback deletes every key tried.
    ingest.objectKeys.push(objectKey);
    md5FromS3 = await library.putImageObject(objectKey, metered, mimeType, meter.contentMd5);
  } catch (error) {
    body.destroy();
    throw clientError(error, meter, body);
  }
  const item = { itemGuid, mimeType, size: meter.byteCount, md5: md5FromS3 ?? meter.md5() };
  return { item, objectKey, ...(source.declaredName !== undefined ? { fileName: source.declaredName } : {}) };
}

// ---- Bounded concurrency over a (possibly streaming) list of sources ----

interface Settled<R> {
  index: number;
  outcome: PromiseSettledResult<R>;
}

/**
 * Runs `work` on each source, `limit` at a time, pulling sources as slots free up (a multipart body yields
 * its parts only as they are read). A failing source does not stop the others: every failure is reported.
 * A failing source list (malformed body, too many items) stops pulling and is returned as `listError`.
 */
async function settleBounded<R>(
  sources: Iterable<ImageSource> | AsyncIterable<ImageSource>,
  limit: number,
  maxItems: number,
  work: (source: ImageSource) => Promise<R>,
): Promise<{ settled: Settled<R>[]; count: number; listError?: unknown }> {
  const iterator = Symbol.asyncIterator in sources ? sources[Symbol.asyncIterator]() : (async function* () { yield* sources; })();
  const settled: Settled<R>[] = [];
  let count = 0;
  let listError: unknown;
  const worker = async () => {
    while (listError === undefined) {
      let next: IteratorResult<ImageSource>;
      try {
        next = await iterator.next();
      } catch (error) {
        listError ??= error;
        return;
      }
      if (next.done) return;
      if (++count > maxItems) {
        listError ??= tooManyItems(maxItems);
        return;
      }
      const source = next.value;
      const outcome = await work(source).then(
        (value): PromiseSettledResult<R> => ({ status: 'fulfilled', value }),
        (reason: unknown): PromiseSettledResult<R> => ({ status: 'rejected', reason }),
      );
      settled.push({ index: source.index, outcome });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
  if (listError !== undefined) await iterator.return?.();
  return { settled: settled.sort((a, b) => a.index - b.index), count: Math.min(count, maxItems), ...(listError !== undefined ? { listError } : {}) };
}

// ---- Commit and roll back ----

/**
 * How long after a push, pull or upload began the sweeper may remove what it left uncommitted: far
 * longer than any function runs (15 minutes at most), so no request is still writing then.
 */
export const SWEEP_AFTER_MS = 60 * 60 * 1000;

/** One push, pull or completed upload: the anonymous user it creates and the builder link token it hands out. */
interface Ingest {
  apiKeyId: string;
  anonymousUserId: string;
  token: string;
  createdAt: number;
  /** Writes the ingest intent once, before the first object (a request refused before storing anything writes none). */
  writeIntent(): Promise<void>;
  /** Whether writeIntent was called: then rollback deletes the intent last. */
  intentStarted(): boolean;
  /** Every object key an upload was started for. */
  objectKeys: string[];
}

function newIngest(apiKeyId: string): Ingest {
  const identity = { apiKeyId, anonymousUserId: newGuid(), token: newSecretId(), createdAt: Date.now() };
  let written: Promise<void> | undefined;
  return {
    ...identity,
    writeIntent: () => (written ??= library.putIngestIntent(identity, identity.createdAt + SWEEP_AFTER_MS)),
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

const objectsOf = (ingest: Ingest) => ingest.objectKeys.map((objectKey) => () => library.deleteImageObject(objectKey));
const intentOf = (ingest: Ingest) => (ingest.intentStarted() ? [() => library.deleteIngestIntent(ingest.anonymousUserId)] : []);

/**
 * Items and the builder link in one round trip, then their owner: the commit point, after which the items
 * read as present. Every write is safe to repeat.
 */
async function writeCommit(ingest: Pick<Ingest, 'apiKeyId' | 'anonymousUserId' | 'token' | 'createdAt'>, images: StoredImage[]): Promise<void> {
  const { apiKeyId, anonymousUserId, token, createdAt } = ingest;
  const itemGuids = images.map((image) => image.item.itemGuid);
  await library.putItemsAndBuilderLink(
    images.map((image) => ({ ...image.item, apiKeyId, ownerId: anonymousUserId, objectKey: image.objectKey, createdAt, ...(image.fileName !== undefined ? { fileName: image.fileName } : {}) })),
    { token, apiKeyId, itemGuids, anonymousUserIds: [anonymousUserId], createdAt },
  );
  await library.putAnonymousUser({ anonymousUserId, apiKeyId, itemGuids, createdAt });
}

function recordMetrics(items: LibraryItem[]): void {
  metrics.addMetric(METRIC.ImagesStored, 'Count', items.length);
  metrics.addMetric(METRIC.ImageBytesStored, 'Bytes', items.reduce((sum, item) => sum + item.size, 0));
}

const resultOf = (ingest: { anonymousUserId: string; token: string }, images: StoredImage[]): IngestResult => ({
  items: images.map((image) => image.item),
  productBuilderUrl: builderUrl(ingest.token),
  anonymousUserId: ingest.anonymousUserId,
});

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
  const { settled, count, listError } = await settleBounded(sources, options.concurrency ?? 4, config.libraryMaxItems, (source) => storeImage(source, maxBytes, ingest));
  const images = settled.flatMap(({ outcome }) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const rejected = settled.flatMap(({ index, outcome }) => (outcome.status === 'rejected' ? [{ index, reason: outcome.reason as unknown }] : []));
  const internal = rejected.find(({ reason }) => !(reason instanceof DomainError));
  if (listError !== undefined || rejected.length > 0 || count === 0) {
    await rollBack(objectsOf(ingest), intentOf(ingest));
    if (internal) throw internal.reason;
    if (listError !== undefined) throw listError;
    if (count === 0) throw badRequest('NoImages', 'The request carries no image.');
    const failures: ItemFailure[] = rejected.map(({ index, reason }) => ({ index, error: reason as DomainError }));
    throw failedItemsError(failures, count);
  }

  try {
    await writeCommit(ingest, images);
  } catch (error) {
    // The owner record goes first: without it the items are uncommitted even if a later delete fails.
    await rollBack(
      [() => library.deleteAnonymousUser(ingest.anonymousUserId)],
      [...images.map((image) => () => library.deleteItem(image.item.itemGuid)), () => library.deleteBuilderLink(ingest.token)],
      objectsOf(ingest),
      intentOf(ingest),
    );
    throw error;
  }
  // The intent stays until it expires: deleting it would cost every push a round trip, and the sweeper
  // finds this request committed.
  recordMetrics(images.map((image) => image.item));
  return resultOf(ingest, images);
}

// ---- Large-file upload ----

/** How long a complete call may hold an upload before another call may take it over (Lambda's timeout is shorter). */
const CLAIM_STALE_MS = 60 * 1000;
/**
 * How long after its presigned POST expired a decided upload may still be finished: half the sweep delay,
 * so a call that starts in time ends (29 s at most) long before the sweeper may look at the upload.
 */
const FINISH_WITHIN_MS = SWEEP_AFTER_MS / 2;

export interface UploadTicket {
  itemGuid: string;
  url: string;
  fields: Record<string, string>;
  maxBytes: number;
  expiresAt: number;
}

export async function createUpload(apiKeyId: string): Promise<UploadTicket> {
  const itemGuid = newGuid();
  const objectKey = library.uploadObjectKey(itemGuid);
  const maxBytes = config.uploadMaxBytes;
  const expirySeconds = config.uploadExpirySeconds;
  const expiresAt = Date.now() + expirySeconds * 1000;
  const post = await library.presignUpload(objectKey, maxBytes, expirySeconds);
  // The pending upload is this request's intent: once it expires, an upload never committed is swept.
  await library.putUpload({ itemGuid, apiKeyId, anonymousUserId: newGuid(), objectKey, expiresAt }, expiresAt + SWEEP_AFTER_MS);
  return { itemGuid, url: post.url, fields: post.fields, maxBytes, expiresAt };
}

const uploadNotFound = (itemGuid: string) => notFound('UploadNotFound', `No pending upload ${itemGuid} for this API key (it may have expired).`);

/** Type from a ranged GET of the first bytes, then size and MD5 by streaming the same object version. */
async function verifyUploadedObject(objectKey: string, maxBytes: number): Promise<{ mimeType: string; size: number; md5: string; etag: string }> {
  const head = await library.readObjectHead(objectKey, SNIFF_BYTES);
  if (!head) throw conflict('UploadMissing', 'Nothing has been uploaded for this item yet: POST the file to the presigned upload first.');
  const mimeType = sniffImageType(head.head);
  // S3 enforces the policy's size range; checking again keeps stand-ins without policy checks honest.
  if (mimeType === undefined || head.size > maxBytes) {
    await library.deleteImageObject(objectKey);
    throw mimeType === undefined ? notAnImage(head.size) : imageTooLarge(maxBytes);
  }
  const meter = new ImageMeter(maxBytes);
  try {
    await pipeline(await library.openObject(objectKey, head.etag), meter, new Writable({ write: (_chunk, _encoding, done) => done() }));
  } catch (error) {
    // A polyglot is refused like any other non-image: its bytes are not kept.
    if (error instanceof DomainError && error.kind === 'UnsupportedMedia') await library.deleteImageObject(objectKey);
    throw error;
  }
  return { mimeType, size: meter.byteCount, md5: meter.md5(), etag: head.etag };
}

async function finishUpload(upload: library.PendingUpload, result: library.UploadResult): Promise<IngestResult> {
  const ingest = { apiKeyId: upload.apiKeyId, anonymousUserId: upload.anonymousUserId, token: result.token, createdAt: result.createdAt };
  const images: StoredImage[] = [{ item: result.item, objectKey: library.libraryObjectKey(upload.anonymousUserId, result.item.itemGuid) }];
  await writeCommit(ingest, images);
  await library.deleteImageObject(upload.objectKey);
  return resultOf(ingest, images);
}

/**
 * Verifies the uploaded object and adds it to the library as push would. Safe to repeat: once verified,
 * the outcome is recorded on the upload first, and a repeated call finishes the same writes and answers
 * the same. A refused object (not an image, too large) is deleted; the presigned upload may be used again.
 */
export async function completeUpload(apiKeyId: string, itemGuid: string, now = Date.now()): Promise<IngestResult> {
  const upload = await library.getUpload(itemGuid);
  if (!upload || upload.apiKeyId !== apiKeyId) throw uploadNotFound(itemGuid);
  // A decided upload is finished (or answered again) only while the sweeper cannot be at work on it.
  if (upload.result) {
    if (now >= upload.expiresAt + FINISH_WITHIN_MS) throw uploadNotFound(itemGuid);
    return finishUpload(upload, upload.result);
  }
  if (upload.expiresAt <= now) throw uploadNotFound(itemGuid);
  if (!(await library.claimUpload(itemGuid, now, now - CLAIM_STALE_MS))) {
    throw conflict('UploadInProgress', `Upload ${itemGuid} is being completed by another request; retry in a moment.`);
  }
  let verified: Awaited<ReturnType<typeof verifyUploadedObject>>;
  try {
    verified = await verifyUploadedObject(upload.objectKey, config.uploadMaxBytes);
    // The library copy is made before the decision; a call that dies here leaves the same key for the retry.
    await library.copyObject(upload.objectKey, library.libraryObjectKey(upload.anonymousUserId, itemGuid), verified.etag);
  } catch (error) {
    await library.releaseUpload(itemGuid, now).catch((release: unknown) => logger.warn('could not release upload claim', { itemGuid, reason: String(release) }));
    throw error;
  }
  const result: library.UploadResult = {
    item: { itemGuid, mimeType: verified.mimeType, size: verified.size, md5: verified.md5 },
    token: newSecretId(),
    createdAt: now,
  };
  if (!(await library.recordUploadResult(itemGuid, now, result))) {
    throw conflict('UploadInProgress', `Upload ${itemGuid} was taken over by another request; retry to read its outcome.`);
  }
  const ingested = await finishUpload(upload, result);
  recordMetrics([result.item]);
  return ingested;
}
