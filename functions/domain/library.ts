/**
 * Library rules without AWS: which bytes are an accepted image, the library item's shape, and the
 * all-or-nothing failure of a request that carries several images.
 */
import { DomainError, badRequest } from '../shared/errors.ts';
import type { ImageMetadata } from '../library/image-header/index.ts';

/** An image in the library. Its metadata (displayed size, orientation, density) is read from the header as the bytes stream in. */
export interface LibraryItem extends ImageMetadata {
  itemGuid: string;
  /** The sniffed type, never the client's claim. */
  mimeType: string;
  /** Bytes. */
  size: number;
  /** MD5 of the bytes, 32 uppercase hex. */
  md5: string;
}

/** Enough leading bytes for every signature below (the ISO-BMFF brand sits at bytes 8..11). */
export const SNIFF_BYTES = 16;

const ascii = (bytes: Uint8Array, start: number, text: string): boolean =>
  text.length + start <= bytes.length && text.split('').every((char, i) => bytes[start + i] === char.charCodeAt(0));

const startsWith = (bytes: Uint8Array, prefix: readonly number[]): boolean =>
  prefix.length <= bytes.length && prefix.every((byte, i) => bytes[i] === byte);

/** ISO-BMFF major brands (bytes 8..11 after `ftyp`) of still-image HEIF files and the type each means. */
const HEIF_BRANDS: Record<string, string> = {
  heic: 'image/heic',
  heix: 'image/heic',
  heim: 'image/heic',
  heis: 'image/heic',
  hevc: 'image/heic-sequence',
  hevx: 'image/heic-sequence',
  mif1: 'image/heif',
  msf1: 'image/heif-sequence',
  avif: 'image/avif',
  avis: 'image/avif',
};

/** The accepted image types by their leading bytes, first match wins. */
const SIGNATURES: readonly { mimeType: string; matches: (head: Uint8Array) => boolean }[] = [
  { mimeType: 'image/jpeg', matches: (head) => startsWith(head, [0xff, 0xd8, 0xff]) },
  { mimeType: 'image/png', matches: (head) => startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { mimeType: 'image/gif', matches: (head) => ascii(head, 0, 'GIF87a') || ascii(head, 0, 'GIF89a') },
  { mimeType: 'image/webp', matches: (head) => ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP') },
  {
    mimeType: 'image/tiff',
    matches: (head) => startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a]),
  },
  {
    mimeType: 'image/bmp',
    matches: (head) =>
      ascii(head, 0, 'BM') && head.length >= 14 && head[6] === 0 && head[7] === 0 && head[8] === 0 && head[9] === 0,
  },
];

/** The image type of a file from its first bytes (at least SNIFF_BYTES of them unless the file is shorter); undefined when it is no accepted image. */
export function sniffImageType(head: Uint8Array): string | undefined {
  if (ascii(head, 4, 'ftyp') && head.length >= 12) {
    const brand = String.fromCharCode(...head.subarray(8, 12));
    return HEIF_BRANDS[brand];
  }
  return SIGNATURES.find((signature) => signature.matches(head))?.mimeType;
}

export const ACCEPTED_IMAGE_TYPES = 'JPEG, PNG, GIF, WebP, TIFF, BMP, HEIC/HEIF or AVIF';

/** One image of a request that could not be stored, by its zero-based position in the request. */
export interface ItemFailure {
  index: number;
  error: DomainError;
}

/**
 * The one error of an all-or-nothing request from its failed images. A lone failure keeps its own kind
 * and code; several keep the kind they share (else Invalid). Details list every failure.
 */
export function failedItemsError(failures: readonly ItemFailure[], itemCount: number): DomainError {
  const sorted = [...failures].sort((a, b) => a.index - b.index);
  const details = {
    Failures: sorted.map(({ index, error }) => ({ Index: index, Code: error.code, Reason: error.message })),
  };
  const kinds = new Set(sorted.map(({ error }) => error.kind));
  const kind = kinds.size === 1 ? (sorted[0]?.error.kind ?? 'Invalid') : 'Invalid';
  const first = sorted[0]?.error;
  if (itemCount === 1 && first) return new DomainError(first.kind, first.code, first.message, { details });
  const codes = new Set(sorted.map(({ error }) => error.code));
  const code = codes.size === 1 && first ? first.code : 'ItemsRejected';
  const message = `${sorted.length} of ${itemCount} images could not be stored, so none was: ${sorted.map(({ index, error }) => `#${index}: ${error.message}`).join('; ')}`;
  return new DomainError(kind, code, message, { details });
}

/**
 * How long after a push, pull or upload began the sweeper may remove what it left uncommitted: far
 * longer than any function runs (15 minutes at most), so no request is still writing then.
 */
export const SWEEP_AFTER_MS = 60 * 60 * 1000;

/**
 * Items one product builder URL may name: its creation checks each item in the link's own transaction
 * (100 actions: the link and 99 checks), and a claim of it writes its entries and one check in one.
 */
export const MAX_BUILDER_ITEMS = 99;

export const tooManyItems = (max: number) => badRequest('TooManyItems', `A request may carry at most ${max} images.`);

/**
 * What an expired record names for the sweeper: the objects of a push, pull or upload (under its anonymous
 * user's prefix, plus a large-file upload's staging object, or a resumable upload's S3 multipart upload,
 * aborted with its parts), removed unless the request committed; the object of an erased item, removed
 * in any case; a checkout whose artwork hold ended, whose items' deferred erasures it may release; or the
 * end of the unpaid holds a deferred erasure waits for, which may release it.
 */
export type Leftover =
  | { anonymousUserId: string; stagingKey?: string; multipartUpload?: { objectKey: string; uploadId: string } }
  | { erasedObjectKey: string }
  | { endedHold: { checkoutId: string; artwork: { projectGuid: string; artworkDigest: string }[] } }
  | { unpaidHoldsEnd: { itemGuid: string; endsAt: number } };
