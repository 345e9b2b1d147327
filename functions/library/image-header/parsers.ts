/** The header parser of each sniffed image type. */
import { readBmp } from './bmp.ts';
import type { ByteView } from './bytes.ts';
import { readGif } from './gif.ts';
import { heifDecoding, readHeif, type HeifDecoding } from './heif.ts';
import { readJpeg } from './jpeg.ts';
import type { ImageMetadata } from './metadata.ts';
import { readPng } from './png.ts';
import { readTiff } from './tiff.ts';
import { readWebp } from './webp.ts';

export type HeaderParser = (view: ByteView) => ImageMetadata;

/**
 * The parser of each sniffed type, and whether its header may lie far into the file: a TIFF's first IFD may
 * follow the pixel data (libtiff and ImageMagick write it last), and a HEIF's `meta` box may follow `mdat`.
 * For those the reader lets the bytes in between go by, counting them, and holds a window from that offset.
 */
export const PARSERS: Record<
  string,
  {
    parse: HeaderParser;
    skipsAhead: boolean;
    /** What decoding takes, from the whole file, where the displayed size does not tell (HEIF). */
    decoding?: (view: ByteView) => HeifDecoding;
  }
> = {
  'image/jpeg': { parse: readJpeg, skipsAhead: false },
  'image/png': { parse: readPng, skipsAhead: false },
  'image/gif': { parse: readGif, skipsAhead: false },
  'image/webp': { parse: readWebp, skipsAhead: false },
  'image/tiff': { parse: readTiff, skipsAhead: true },
  'image/bmp': { parse: readBmp, skipsAhead: false },
  'image/heic': { parse: readHeif, skipsAhead: true, decoding: heifDecoding },
  'image/heif': { parse: readHeif, skipsAhead: true, decoding: heifDecoding },
  'image/avif': { parse: readHeif, skipsAhead: true, decoding: heifDecoding },
  'image/heic-sequence': { parse: readHeif, skipsAhead: true, decoding: heifDecoding },
  'image/heif-sequence': { parse: readHeif, skipsAhead: true, decoding: heifDecoding },
};
