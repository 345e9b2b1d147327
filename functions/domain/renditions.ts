/**
 * Renditions of a library image: the two display-ready copies made after the item is committed (Thumbnail
 * and Preview), their state on the item record, and the rules that need no image library: sizes, which
 * formats carry their own orientation, the pixel limit. Plain types, no AWS, no sharp.
 */

/** The renditions made of every image, by the name the reads answer them under. */
export type RenditionName = 'thumbnail' | 'preview';

/** The renditions made of every image: the long side in pixels, never more than the original's. */
export const RENDITION_SPECS: readonly { name: RenditionName; longSide: number }[] = [
  { name: 'thumbnail', longSide: 320 },
  { name: 'preview', longSide: 1600 },
];

/** What every rendition is encoded as (docs/design.md, "Renditions": why WebP). */
export const RENDITION_CONTENT_TYPE = 'image/webp';

/** One stored rendition: where its bytes are and what they are. */
export interface Rendition {
  objectKey: string;
  width: number;
  height: number;
  contentType: string;
}

/**
 * The renditions' decided state as the item record keeps it. No state at all (an item stored before
 * renditions existed, or one whose renditions are being made) reads as Pending.
 */
export type RenditionsState =
  { status: 'Ready'; thumbnail: Rendition; preview: Rendition } | { status: 'Failed'; reason: string };

/** The rendition objects sit beside the original, so a DELETE that knows the original's key finds them too. */
export const renditionObjectKey = (originalKey: string, name: RenditionName): string => `${originalKey}.${name}.webp`;

/** Both rendition keys of an original. */
export const renditionObjectKeys = (originalKey: string): string[] =>
  RENDITION_SPECS.map((spec) => renditionObjectKey(originalKey, spec.name));

/**
 * Where an original is kept while its erasure waits for a hold: under another key than any URL the customer
 * was given names, so those stop working with the erasure, and only the lab's read signs it.
 */
export const heldObjectKey = (originalKey: string): string => `held/${originalKey}`;

/** The objects the customer's URLs name: the original at its library key and its renditions. */
export const customerObjectKeys = (originalKey: string): string[] => [originalKey, ...renditionObjectKeys(originalKey)];

/** Every object of an image: those and the held original (erasure deletes them all). */
export const imageObjectKeys = (originalKey: string): string[] => [
  ...customerObjectKeys(originalKey),
  heldObjectKey(originalKey),
];

/**
 * Formats whose decoder applies the file's own transformations (HEIF `irot` and `imir`): their EXIF
 * orientation is not applied again, as HEIF readers ignore it (the item's `orientation` for these files is
 * read from `irot`/`imir`, which the decoder has turned already).
 */
const SELF_ORIENTING_TYPES = new Set([
  'image/heic',
  'image/heif',
  'image/heic-sequence',
  'image/heif-sequence',
  'image/avif',
]);

/** The EXIF orientation (1-8) still to apply after decoding an image of this type. */
export const orientationToApply = (mimeType: string, orientation: number): number =>
  SELF_ORIENTING_TYPES.has(mimeType) || orientation < 1 || orientation > 8 ? 1 : orientation;

/** HEIF images whose codec may be HEVC (sharp's prebuilt libvips decodes only the AV1 ones, AVIF). */
export const mayBeHevc = (mimeType: string): boolean =>
  mimeType.startsWith('image/heic') || mimeType.startsWith('image/heif');

/**
 * Why an image gets no renditions, for the pixel limit: `decodedPixels` is what its decoder would produce
 * (a decompression bomb declares it in its header; a HEIF may display far fewer pixels than it decodes).
 */
export function pixelLimitReason(
  shown: { width: number; height: number },
  decodedPixels: number,
  maxPixels: number,
): string | undefined {
  if (decodedPixels <= maxPixels) return undefined;
  const megapixels = (count: number) => `${Number((count / 1_000_000).toFixed(2))} megapixels`;
  const limit = `more than the ${megapixels(maxPixels)} renditions are made of.`;
  const { width, height } = shown;
  return decodedPixels === width * height
    ? `The image has ${width} x ${height} pixels (${megapixels(decodedPixels)}), ${limit}`
    : `The image shows ${width} x ${height} pixels but decodes ${megapixels(decodedPixels)}, ${limit}`;
}

/** Why an original gets no renditions for its size: it is not even read (the function holds it whole). */
export function byteLimitReason(bytes: number, maxBytes: number): string | undefined {
  if (bytes <= maxBytes) return undefined;
  const mebibytes = (count: number) => `${Number((count / 2 ** 20).toFixed(1))} MiB`;
  return `The original is ${mebibytes(bytes)}, more than the ${mebibytes(maxBytes)} renditions are made from.`;
}
