/**
 * Makes the renditions of one image with sharp (libvips): decode once, shrinking on load where the format
 * allows (JPEG by 2, 4 or 8, WebP and HEIF thumbnails), turn it upright, convert it to sRGB through its
 * ICC profile, resize to the Preview's size, and make the Thumbnail from those pixels rather than decoding
 * again. Outputs carry no metadata (sharp writes none unless asked): no EXIF, GPS, XMP, ICC or comments.
 * Before any decoder sees the file, the pixels its decoding would produce are read from it and held to the
 * limit (library/image-header/decoding.ts); HEVC is decoded in a worker thread with time and memory limits.
 */
import sharp, { type OutputInfo, type Sharp } from 'sharp';
import { decodingOf, type Decoding } from '../library/image-header/index.ts';
import { decodeHeif } from './heif-decoder.ts';
import {
  mayBeHevc,
  orientationToApply,
  pixelLimitReason,
  RENDITION_CONTENT_TYPE,
  RENDITION_SPECS,
  type RenditionName,
} from '../domain/renditions.ts';

// One image at a time in a function: libvips' operation cache would only hold on to decoded pixels.
sharp.cache(false);

export interface SourceImage {
  /** The whole file. A HEVC HEIF's bytes move to the decoder's worker (no copy): unreadable after rendering. */
  bytes: Buffer;
  /** The sniffed type of the item. */
  mimeType: string;
  /** EXIF orientation 1-8 as the item records it. */
  orientation: number;
  /** Displayed size as the item records it (read from the header). */
  width: number;
  height: number;
}

export interface EncodedRendition {
  name: RenditionName;
  bytes: Buffer;
  width: number;
  height: number;
  contentType: string;
}

export interface RenderLimits {
  /** Images whose decoding produces more pixels get no renditions (decompression bombs). */
  maxPixels: number;
  /** Each decode and each sharp pipeline stops after this many seconds. */
  timeoutSeconds: number;
  /** A HEVC decode stops when the process's resident memory passes this many bytes. */
  maxRssBytes: number;
}

/** The image itself is the reason no renditions can be made: trying again would fail the same way. */
export class UnrenderableImage extends Error {}

/** WebP quality: 80 keeps photos free of visible artefacts at a third of JPEG 90's bytes. */
const QUALITY = 80;

/** sharp's rotations and mirrors for each EXIF orientation (sharp mirrors before it rotates). */
const ORIENT: Record<number, (image: Sharp) => Sharp> = {
  1: (image) => image,
  2: (image) => image.flop(),
  3: (image) => image.rotate(180),
  4: (image) => image.flip(),
  5: (image) => image.rotate(90).flip(),
  6: (image) => image.rotate(90),
  7: (image) => image.rotate(90).flop(),
  8: (image) => image.rotate(270),
};

const fitInside = (longSide: number) =>
  ({ width: longSide, height: longSide, fit: 'inside', withoutEnlargement: true }) as const;

/** The first line of a decoder's message: libvips repeats itself over several. */
const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

/** HEIF coded with HEVC, which sharp's prebuilt libvips cannot decode (it decodes AV1, AVIF). */
const isHevc = (source: SourceImage, decoding: Decoding): boolean =>
  decoding.codec === 'hvc1' || (decoding.codec === undefined && mayBeHevc(source.mimeType));

/** A sharp pipeline over the image's pixels: HEVC HEIF through libheif (in its worker), everything else straight into libvips. */
async function open(source: SourceImage, decoding: Decoding, limits: RenderLimits): Promise<Sharp> {
  const options = { limitInputPixels: limits.maxPixels, failOn: 'error', autoOrient: false } as const;
  if (!isHevc(source, decoding)) return sharp(source.bytes, options);
  const heif = await decodeHeif(source.bytes, {
    timeoutMs: limits.timeoutSeconds * 1000,
    maxRssBytes: limits.maxRssBytes,
    expected: { width: source.width, height: source.height },
  });
  return sharp(heif.data, { ...options, raw: { width: heif.width, height: heif.height, channels: 4 } });
}

/** What decoding the image takes, read from its whole file; UnrenderableImage when its header cannot be read. */
function decodingOfSource(source: SourceImage): Decoding {
  try {
    return decodingOf(source.bytes, source.mimeType);
  } catch (error) {
    throw new UnrenderableImage(`The image header could not be read: ${firstLine(error)}.`);
  }
}

/**
 * What decoding the image takes, once it is known to be within the limit and decodable at all; UnrenderableImage
 * otherwise. Reads the file, decodes nothing.
 */
export function decodingWithinLimit(source: SourceImage, maxPixels: number): Decoding {
  const decoding = decodingOfSource(source);
  const tooLarge = pixelLimitReason(source, decoding.pixels, maxPixels);
  if (tooLarge) throw new UnrenderableImage(tooLarge);
  if (source.mimeType === 'image/bmp')
    throw new UnrenderableImage('BMP images get no renditions: the image library (libvips) reads no BMP.');
  return decoding;
}

/** Both renditions of the image, largest first (`decoding`: decodingWithinLimit's); UnrenderableImage when the image cannot give any. */
export async function renderRenditions(
  source: SourceImage,
  decoding: Decoding,
  limits: RenderLimits,
): Promise<EncodedRendition[]> {
  const specs = [...RENDITION_SPECS].sort((a, b) => b.longSide - a.longSide);
  const largest = specs[0]!;
  let pixels: { data: Buffer; info: OutputInfo };
  try {
    const image = await open(source, decoding, limits);
    pixels = await ORIENT[orientationToApply(source.mimeType, source.orientation)]!(image)
      .resize(fitInside(largest.longSide))
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .timeout({ seconds: limits.timeoutSeconds })
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    if (error instanceof UnrenderableImage) throw error;
    throw new UnrenderableImage(`The image could not be decoded: ${firstLine(error)}.`);
  }
  const { width, height, channels } = pixels.info;
  return Promise.all(
    specs.map(async (spec) => {
      const encoded = await sharp(pixels.data, { raw: { width, height, channels } })
        .resize(fitInside(spec.longSide))
        .webp({ quality: QUALITY })
        .timeout({ seconds: limits.timeoutSeconds })
        .toBuffer({ resolveWithObject: true });
      return {
        name: spec.name,
        bytes: encoded.data,
        width: encoded.info.width,
        height: encoded.info.height,
        contentType: RENDITION_CONTENT_TYPE,
      };
    }),
  );
}
