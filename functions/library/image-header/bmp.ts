/**
 * BMP: the DIB header after the 14-byte file header. BITMAPCOREHEADER (12 bytes, OS/2) has 16-bit sizes and
 * no density; the later headers (40 bytes and up) have signed 32-bit sizes (a negative height means top-down
 * rows) and pixels per metre, 0 when undeclared.
 */
import { ByteView, MalformedHeader, METRES_PER_INCH, toDpi } from './bytes.ts';
import { NO_DENSITY, displayed, type ImageMetadata } from './metadata.ts';

const FILE_HEADER = 14;
const CORE_HEADER_SIZE = 12;
const INFO_HEADER_SIZE = 40;

export function readBmp(bmp: ByteView): ImageMetadata {
  const view = bmp.withOrder(true);
  if (view.ascii(0, 2) !== 'BM') throw new MalformedHeader('no BMP signature');
  const headerSize = view.u32(FILE_HEADER);
  if (headerSize === CORE_HEADER_SIZE) {
    const [width, height] = [view.u16(18), view.u16(20)];
    if (width === 0 || height === 0) throw new MalformedHeader(`bitmap of ${width} x ${height} pixels`);
    return displayed(width, height, 1, NO_DENSITY);
  }
  if (headerSize < INFO_HEADER_SIZE) throw new MalformedHeader(`DIB header of ${headerSize} bytes`);
  const width = Math.abs(view.i32(18));
  const height = Math.abs(view.i32(22));
  if (width === 0 || height === 0) throw new MalformedHeader(`bitmap of ${width} x ${height} pixels`);
  const density = { dpiX: toDpi(view.i32(38), METRES_PER_INCH), dpiY: toDpi(view.i32(42), METRES_PER_INCH) };
  return displayed(width, height, 1, density.dpiX !== null && density.dpiY !== null ? density : NO_DENSITY);
}
