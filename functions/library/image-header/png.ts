/**
 * PNG: IHDR (always the first chunk) gives the size; the chunks up to the first IDAT may hold pHYs (density,
 * unit 1 = metre) and eXIf (EXIF orientation). Both must precede IDAT by the PNG specification, so reading
 * stops there. APNG and interlaced files have the same IHDR. Ancillary chunks before IDAT can be large (an ICC
 * profile, XMP text): when the next chunk lies past the reader's bound, the size from IHDR is answered with what
 * was found before it, since a PNG whose size is readable is a readable image.
 */
import { ByteView, MalformedHeader, METRES_PER_INCH, NeedMoreBytes, toDpi } from './bytes.ts';
import { readEmbeddedExif } from './exif.ts';
import { NO_DENSITY, displayed, type Density, type ImageMetadata } from './metadata.ts';

const SIGNATURE = '\x89PNG\r\n\x1a\n';
/** Chunk layout: length (4), type (4), data (length), CRC (4). */
const CHUNK_OVERHEAD = 12;
const PHYS_UNIT_METRE = 1;

function physDensity(view: ByteView, data: number): Density {
  if (view.u8(data + 8) !== PHYS_UNIT_METRE) return NO_DENSITY; // unit 0: aspect ratio only
  return { dpiX: toDpi(view.u32(data), METRES_PER_INCH), dpiY: toDpi(view.u32(data + 4), METRES_PER_INCH) };
}

export function readPng(view: ByteView): ImageMetadata {
  if (view.ascii(0, 8) !== SIGNATURE || view.ascii(12, 4) !== 'IHDR')
    throw new MalformedHeader('no PNG signature and IHDR');
  const width = view.u32(16);
  const height = view.u32(20);
  if (width === 0 || height === 0) throw new MalformedHeader(`IHDR of ${width} x ${height} pixels`);
  let density = NO_DENSITY;
  let orientation = 1;
  try {
    for (let at = 8 + CHUNK_OVERHEAD + view.u32(8); ;) {
      const length = view.u32(at);
      const type = view.ascii(at + 4, 4);
      const data = at + 8;
      if (type === 'IDAT' || type === 'IEND') return displayed(width, height, orientation, density);
      if (type === 'pHYs' && length >= 9) density = physDensity(view, data);
      if (type === 'eXIf') orientation = readEmbeddedExif(view, data, data + length)?.orientation ?? 1;
      at = data + length + 4;
    }
  } catch (error) {
    if (error instanceof NeedMoreBytes) error.known = displayed(width, height, orientation, density);
    throw error;
  }
}
