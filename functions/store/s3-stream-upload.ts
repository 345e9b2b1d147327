/**
 * Streams a body of unknown length to S3 with constant memory: parts are cut into a small pool of 5 MiB
 * buffers that are reused for the whole upload, at most `concurrency` parts in flight.
 *
 * Why not `@aws-sdk/lib-storage`'s Upload: it concatenates a fresh 5 MiB buffer for every part. Those
 * outlive a young-generation GC and pile up as dead off-heap memory until V8's next full GC, which it
 * only runs after tens of MB of such garbage: a 200 MB pull grew the process by 60-90 MB (see
 * BENCHMARKS.md). Reusing the part buffers keeps the growth at the pool's size.
 */
import type { Readable } from 'node:stream';
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
}

/** Free part buffers, shared by the uploads of this process so a warm function allocates none. */
const freeBuffers: Buffer[] = [];
const MAX_POOLED = 8;

const takeBuffer = (): Buffer => freeBuffers.pop() ?? Buffer.allocUnsafe(PART_BYTES);
const returnBuffer = (buffer: Buffer): void => {
  if (freeBuffers.length < MAX_POOLED) freeBuffers.push(buffer);
};

export async function uploadStream(s3: S3Client, body: Readable, target: StreamUpload): Promise<void> {
  const concurrency = Math.max(1, target.concurrency ?? 2);
  const object = { Bucket: target.bucket, Key: target.key };
  let uploadId: string | undefined;
  const parts: { PartNumber: number; ETag: string | undefined }[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;

  let buffer = takeBuffer();
  let filled = 0;

  const sendPart = async (part: Buffer, length: number): Promise<void> => {
    uploadId ??= (await s3.send(new CreateMultipartUploadCommand({ ...object, ContentType: target.contentType }))).UploadId;
    const partNumber = parts.length + 1;
    const slot = { PartNumber: partNumber, ETag: undefined as string | undefined };
    parts.push(slot);
    const sending = s3
      .send(new UploadPartCommand({ ...object, UploadId: uploadId, PartNumber: partNumber, Body: part.subarray(0, length), ContentLength: length }))
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

  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      let offset = 0;
      while (offset < chunk.length) {
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
    }
    if (uploadId === undefined) {
      // The whole body fit in one part: a plain PutObject.
      await s3.send(new PutObjectCommand({ ...object, ContentType: target.contentType, Body: buffer.subarray(0, filled), ContentLength: filled }));
      return;
    }
    if (filled > 0) await sendPart(buffer, filled);
    else returnBuffer(buffer);
    await Promise.all(inFlight);
    if (failure) throw failure;
    await s3.send(new CompleteMultipartUploadCommand({ ...object, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
  } catch (error) {
    await Promise.allSettled(inFlight);
    if (uploadId !== undefined) await s3.send(new AbortMultipartUploadCommand({ ...object, UploadId: uploadId })).catch(() => {});
    throw error;
  } finally {
    if (uploadId === undefined) returnBuffer(buffer);
  }
}
