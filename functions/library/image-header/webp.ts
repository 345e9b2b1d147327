/**
 * WebP (RIFF): the first chunk decides the kind. VP8 (lossy) holds 14-bit sizes after its key-frame start
 * code, VP8L (lossless) 14-bit sizes minus one after its signature byte, VP8X (extended: alpha, animation,
 * metadata) the 24-bit canvas size minus one. VP8X's EXIF chunk sets the orientation only when it comes
 * before the image data: the WebP container puts EXIF after the image, and reading that far would mean
 * reading the whole file, so a conforming file reports orientation 1 (as browsers, which ignore it, show it).
 * WebP declares no density.
 */
import { ByteView, MalformedHeader } from './bytes.ts';
import { readEmbeddedExif } from './exif.ts';
import { NO_DENSITY, displayed, type ImageMetadata } from './metadata.ts';

const FIRST_CHUNK = 12;
const VP8_START_CODE = 0x2a019d;
const VP8L_SIGNATURE = 0x2f;
const VP8X_HAS_EXIF = 0x08;
/** Chunks that hold or start the image data: orientation is looked for only before them. */
const IMAGE_DATA = new Set(['VP8 ', 'VP8L', 'ALPH', 'ANIM', 'ANMF']);

/** Orientation from an EXIF chunk before the image data, 1 otherwise. */
function vp8xOrientation(view: ByteView, flags: number, firstChunkEnd: number): number {
  if ((flags & VP8X_HAS_EXIF) === 0) return 1;
  for (let at = firstChunkEnd; ;) {
    const type = view.ascii(at, 4);
    const size = view.u32(at + 4);
    const data = at + 8;
    if (IMAGE_DATA.has(type)) return 1;
    if (type === 'EXIF') return readEmbeddedExif(view, data, data + size)?.orientation ?? 1;
    at = data + size + (size % 2); // chunks are padded to an even size
  }
}

function dimensions(view: ByteView, type: string, data: number): { width: number; height: number } {
  switch (type) {
    case 'VP8 ':
      if (view.withOrder(true).u24(data + 3) !== VP8_START_CODE)
        throw new MalformedHeader('no VP8 key frame start code');
      return { width: view.u16(data + 6) & 0x3fff, height: view.u16(data + 8) & 0x3fff };
    case 'VP8L': {
      if (view.u8(data) !== VP8L_SIGNATURE) throw new MalformedHeader('no VP8L signature');
      const bits = view.u32(data + 1);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    case 'VP8X':
      return { width: view.u24(data + 4) + 1, height: view.u24(data + 7) + 1 };
    default:
      throw new MalformedHeader(`first WebP chunk ${JSON.stringify(type)}`);
  }
}

export function readWebp(riff: ByteView): ImageMetadata {
  const view = riff.withOrder(true);
  if (view.ascii(0, 4) !== 'RIFF' || view.ascii(8, 4) !== 'WEBP') throw new MalformedHeader('no RIFF WEBP header');
  const type = view.ascii(FIRST_CHUNK, 4);
  const size = view.u32(FIRST_CHUNK + 4);
  const data = FIRST_CHUNK + 8;
  const { width, height } = dimensions(view, type, data);
  if (width === 0 || height === 0) throw new MalformedHeader(`WebP of ${width} x ${height} pixels`);
  const orientation = type === 'VP8X' ? vp8xOrientation(view, view.u8(data), data + size + (size % 2)) : 1;
  return displayed(width, height, orientation, NO_DENSITY);
}
