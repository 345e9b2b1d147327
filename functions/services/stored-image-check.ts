/**
 * Checks an object already in the bucket (a presigned upload's, a completed multipart upload's) the way a
 * push checks its bytes on the way in: one GET, the type sniffed from its first bytes (a non-image is not
 * read further), then size, MD5, active content and header metadata by reading the rest of that object
 * version through the meter (a large one in ranges fetched a few at a time), never holding the whole file. An object that is no image is deleted before the refusal is thrown: nothing is kept.
 */
import type { LibraryItem } from '../domain/library.ts';
import { DomainError } from '../shared/errors.ts';
import { ImageMeter, sniffStream } from '../library/image-stream.ts';
import { imageTooLarge } from '../library/image-errors.ts';
import * as objects from '../store/image-object-store.ts';

/**
 * Above this, the object is read in ranges a few at a time: one GET stream (about 80-100 MB/s from S3)
 * would need over 20 s for 2 GiB, while a smaller file is read in a few seconds by one stream, without
 * the ranges' extra copy (docs/performance.md, resumable uploads).
 */
const RANGED_READ_FROM_BYTES = 256 * 1024 * 1024;

export interface VerifiedImage {
  item: Omit<LibraryItem, 'itemGuid'>;
  /** The version checked (its ETag), for a copy of exactly that version. */
  etag: string;
  /** The Content-Type S3 keeps for it: the uploader's, until a copy stores the sniffed one. */
  storedType: string | undefined;
}

/** The image's record, or undefined when there is no object at `objectKey`. */
export async function verifyStoredImage(objectKey: string, maxBytes: number): Promise<VerifiedImage | undefined> {
  const opened = await objects.openObject(objectKey);
  if (!opened) return undefined;
  try {
    // S3 enforces a presigned POST's size range; checking again keeps stand-ins without policy checks honest.
    if (opened.size > maxBytes) throw imageTooLarge(maxBytes);
    const { mimeType, body } = await sniffStream(opened.body);
    const meter = new ImageMeter(maxBytes, mimeType);
    if (opened.size > RANGED_READ_FROM_BYTES) {
      // The GET stays unread: destroying its source ends it (the sniffed stream never started to pull, so
      // destroying that alone left the response open, holding its connection).
      opened.body.destroy();
      await meter.measure(objects.readObjectRanges(objectKey, opened.etag, opened.size));
    } else await meter.measure(body);
    return {
      item: { mimeType, size: meter.byteCount, md5: meter.md5(), ...meter.imageMetadata() },
      etag: opened.etag,
      storedType: opened.contentType,
    };
  } catch (error) {
    opened.body.destroy();
    // No image (not one at all, an unreadable header) or too large: its bytes are not kept.
    if (error instanceof DomainError && (error.kind === 'UnsupportedMedia' || error.kind === 'TooLarge'))
      await objects.deleteImageObject(objectKey);
    throw error;
  }
}
