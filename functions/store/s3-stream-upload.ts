/**
 * Streams a body of unknown length to S3 with constant memory: parts are cut into a small pool of 5 MiB
 * buffers that are reused for the whole upload, at most `concurrency` parts in flight.
 *
 * Why not `@aws-sdk/lib-storage`'s Upload: it concatenates a fresh 5 MiB buffer for every part. Those
 * outlive a young-generation GC and pile up as dead off-heap memory until V8's next full GC, which it
 * only runs after tens of MB of such garbage: a 200 MB pull grew the process by 60-90 MB (see
 * BENCHMARKS.md). Reusing the part buffers keeps the growth at the pool's size.
 */
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

/** S3's minimum part size (except the last part). */
export const PART_BYTES = 5 * 1024 * 1024;

export interface StreamUpload {
  bucket: string;
  key: string;
  contentType: string;
  /** Parts uploaded at once; also the number of part buffers (plus one being filled). */
  concurrency?: number;
  /**
   * The body's MD5 (base64) if the caller has it once the body has ended. A body that fits one part is
   * sent with it as Content-MD5 beside a CRC32, parts with a CRC32: S3 checks the bytes it stores against them.
   */
  contentMd5?: () => string | undefined;
  /**
   * Makes the object allowed to exist (e.g. writes the caller's crash-recovery record) and settles when it
   * is. Called once, when the first bytes have gone out, so that its work does not delay the upload's start;
   * only what makes the object exist waits for it: the last byte of a single PutObject (S3 stores nothing
   * until every byte of its Content-Length has arrived) or CompleteMultipartUpload. When it rejects, the
   * upload fails with its error and no object is stored.
   */
  mayStore?: () => Promise<void>;
}

/** What S3 answered for an object stored by one PutObject; a multipart upload answers nothing (its ETag is no digest). */
export interface SinglePutResult {
  etag: string | undefined;
  serverSideEncryption: string | undefined;
}

/**
 * Signs the request without hashing its payload (`UNSIGNED-PAYLOAD`, as the SDK does for streams): the
 * request carries a Content-MD5 or CRC32 that S3 checks, so a SHA-256 of 4 MB for the signature adds nothing.
 */
function withUnsignedPayload<C extends PutObjectCommand>(command: C): C {
  command.middlewareStack.add(
    (next) => async (args) => {
      (args.request as { headers: Record<string, string> }).headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      return next(args);
    },
    { step: 'build', name: 'unsignedPayloadWithChecksum' },
  );
  return command;
}

/**
 * `bytes` as a stream whose last byte waits for `gate`, which is called once the rest has been taken. A
 * rejected gate withholds it (the caller aborts the request then): the stream itself never fails, as nobody
 * may be listening to it any more.
 */
function lastByteAfter(bytes: Buffer, gate: () => Promise<void>): Readable {
  const cut = Math.max(0, bytes.length - 1);
  return Readable.from(
    (async function* () {
      if (cut > 0) yield bytes.subarray(0, cut);
      if (
        await gate().then(
          () => true,
          () => false,
        )
      )
        yield bytes.subarray(cut);
    })(),
    { objectMode: false },
  );
}

/**
 * The checksums of a single PutObject, given as headers: a CRC32 computed here (a stream body would
 * otherwise make the SDK send it as an aws-chunked trailer), and the MD5 when the caller has it.
 */
function singlePutChecksums(
  bytes: Buffer,
  contentMd5: string | undefined,
): { ChecksumCRC32: string; ContentMD5?: string } {
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(bytes));
  return { ChecksumCRC32: crc.toString('base64'), ...(contentMd5 ? { ContentMD5: contentMd5 } : {}) };
}

/** Free part buffers, shared by the uploads of this process so a warm function allocates none. */
const freeBuffers: Buffer[] = [];
const MAX_POOLED = 8;

const takeBuffer = (): Buffer => freeBuffers.pop() ?? Buffer.allocUnsafe(PART_BYTES);
const returnBuffer = (buffer: Buffer): void => {
  if (freeBuffers.length < MAX_POOLED) freeBuffers.push(buffer);
};

export async function uploadStream(
  s3: S3Client,
  body: Readable,
  target: StreamUpload,
): Promise<SinglePutResult | undefined> {
  const concurrency = Math.max(1, target.concurrency ?? 2);
  // A failed body stream does not end the HTTP request by itself (S3 would wait for the missing byte): a
  // refused `mayStore` aborts the request under way.
  const abort = new AbortController();
  let allowed: Promise<void> | undefined;
  const mayStore = (): Promise<void> => {
    if (allowed === undefined) {
      allowed = target.mayStore?.() ?? Promise.resolve();
      allowed.catch((error: unknown) => abort.abort(error));
    }
    return allowed;
  };
  const object = { Bucket: target.bucket, Key: target.key };
  let uploadId: string | undefined;
  const parts: { PartNumber: number; ETag: string | undefined }[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;

  /** The part being filled; taken from the pool once a copy is needed. */
  let buffer: Buffer | undefined;
  let filled = 0;
  /** The body's first chunk, held as it is while it is the only one: a body that comes as one chunk goes out without a copy. */
  let whole: Buffer | undefined;

  const sendPart = async (part: Buffer, length: number): Promise<void> => {
    uploadId ??= (await s3.send(new CreateMultipartUploadCommand({ ...object, ContentType: target.contentType })))
      .UploadId;
    void mayStore();
    const partNumber = parts.length + 1;
    const slot = { PartNumber: partNumber, ETag: undefined as string | undefined };
    parts.push(slot);
    const sending = s3
      .send(
        new UploadPartCommand({
          ...object,
          UploadId: uploadId,
          PartNumber: partNumber,
          Body: part.subarray(0, length),
          ContentLength: length,
          ChecksumAlgorithm: 'CRC32',
        }),
      )
      .then((result) => {
        slot.ETag = result.ETag;
      })
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => {
        inFlight.delete(sending);
        returnBuffer(part);
      });
    inFlight.add(sending);
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
  };

  const copyIn = async (chunk: Buffer): Promise<void> => {
    let offset = 0;
    while (offset < chunk.length) {
      buffer ??= takeBuffer();
      const copied = chunk.copy(buffer, filled, offset);
      filled += copied;
      offset += copied;
      if (filled === PART_BYTES) {
        await sendPart(buffer, filled);
        if (failure) throw failure;
        buffer = takeBuffer();
        filled = 0;
      }
    }
  };

  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (whole === undefined && buffer === undefined && chunk.length <= PART_BYTES) {
        whole = chunk;
        continue;
      }
      if (whole !== undefined) {
        await copyIn(whole);
        whole = undefined;
      }
      await copyIn(chunk);
    }
    if (uploadId === undefined) {
      // The whole body fit in one part: a plain PutObject.
      const single = whole ?? (buffer ?? Buffer.alloc(0)).subarray(0, filled);
      const body = target.mayStore ? lastByteAfter(single, mayStore) : single;
      const put = new PutObjectCommand({
        ...object,
        ContentType: target.contentType,
        Body: body,
        ContentLength: single.length,
        ...singlePutChecksums(single, target.contentMd5?.()),
      });
      const output = await s3.send(withUnsignedPayload(put), { abortSignal: abort.signal });
      return { etag: output.ETag, serverSideEncryption: output.ServerSideEncryption };
    }
    if (filled > 0) await sendPart(buffer as Buffer, filled);
    else if (buffer) returnBuffer(buffer);
    await Promise.all(inFlight);
    if (failure) throw failure;
    await mayStore();
    await s3.send(
      new CompleteMultipartUploadCommand({ ...object, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
    );
    return undefined;
  } catch (error) {
    await Promise.allSettled(inFlight);
    if (uploadId !== undefined)
      await s3.send(new AbortMultipartUploadCommand({ ...object, UploadId: uploadId })).catch(() => {});
    throw error;
  } finally {
    if (uploadId === undefined && buffer) returnBuffer(buffer);
  }
}
