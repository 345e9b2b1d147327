/**
 * Checks an object already in the bucket (a presigned upload's, a completed multipart upload's) the way a
 * push checks its bytes on the way in: the type sniffed from the first bytes (a ranged GET), then size, MD5,
 * active content and header metadata by reading that same object version through the meter (a large one
 * in ranges fetched a few at a time), never holding the whole file. An object that is no image is deleted before the refusal is thrown: nothing is kept.
 */
import { SNIFF_BYTES, sniffImageType, type LibraryItem } from '../domain/library.ts';
import { DomainError } from '../shared/errors.ts';
import { ImageMeter } from '../library/image-stream.ts';
import { imageTooLarge, notAnImage } from '../library/image-errors.ts';
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
}

/** The image's record, or undefined when there is no object at `objectKey`. */
export async function verifyStoredImage(objectKey: string, maxBytes: number): Promise<VerifiedImage | undefined> {
  const head = await objects.readObjectHead(objectKey, SNIFF_BYTES);
  if (!head) return undefined;
  const mimeType = sniffImageType(head.head);
  // S3 enforces a presigned POST's size range; checking again keeps stand-ins without policy checks honest.
  if (mimeType === undefined || head.size > maxBytes) {
    await objects.deleteImageObject(objectKey);
    throw mimeType === undefined ? notAnImage(head.size) : imageTooLarge(maxBytes);
  }
  const meter = new ImageMeter(maxBytes, mimeType);
  try {
    await meter.measure(
      head.size > RANGED_READ_FROM_BYTES
        ? objects.readObjectRanges(objectKey, head.etag, head.size)
        : await objects.openObject(objectKey, head.etag),
    );
  } catch (error) {
    // A polyglot or an unreadable header is refused like any other non-image: its bytes are not kept.
    if (error instanceof DomainError && error.kind === 'UnsupportedMedia') await objects.deleteImageObject(objectKey);
    throw error;
  }
  return { item: { mimeType, size: meter.byteCount, md5: meter.md5(), ...meter.imageMetadata() }, etag: head.etag };
}
