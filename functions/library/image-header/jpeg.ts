/**
 * JPEG: walks the marker segments from SOI to the first frame header (SOF0-SOF15 except DHT, JPG and DAC:
 * baseline, extended, progressive, lossless, arithmetic), skipping every other segment by its length, so
 * APP segments of any size before the frame (a 60 KiB ICC profile, XMP, Photoshop) cost only their bytes.
 * Reads JFIF density (APP0) and the EXIF block (APP1) in whichever order they come.
 *
 * Density when both declare one: EXIF X/YResolution wins over JFIF. Cameras write only EXIF; editors that
 * write both (Photoshop, GIMP, exiftool, ImageMagick) keep them equal, and where they differ the EXIF value is
 * the one photo software shows and updates as the print size, while JFIF density is often an encoder default.
 */
import { ByteView, CENTIMETRES_PER_INCH, MalformedHeader, toDpi } from './bytes.ts';
import { readEmbeddedExif, type TiffTags } from './exif.ts';
import { NO_DENSITY, displayed, hasDensity, type Density, type ImageMetadata } from './metadata.ts';

const MARKER = { soi: 0xd8, eoi: 0xd9, sos: 0xda, app0: 0xe0, app1: 0xe1, tem: 0x01 } as const;
/** SOFn markers: C0-CF without C4 (DHT), C8 (JPG) and CC (DAC). */
const isFrameHeader = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
/** Markers without a length: TEM and RST0-7. */
const isStandalone = (marker: number) => marker === MARKER.tem || (marker >= 0xd0 && marker <= 0xd7);
/** JFIF density units: 1 dots per inch, 2 dots per centimetre (0 is an aspect ratio only). */
const JFIF_UNITS_PER_INCH: Record<number, number> = { 1: 1, 2: CENTIMETRES_PER_INCH };

function jfifDensity(view: ByteView, start: number): Density {
  const unitsPerInch = JFIF_UNITS_PER_INCH[view.u8(start + 7)];
  if (unitsPerInch === undefined) return NO_DENSITY;
  return { dpiX: toDpi(view.u16(start + 8), unitsPerInch), dpiY: toDpi(view.u16(start + 10), unitsPerInch) };
}

export function readJpeg(view: ByteView): ImageMetadata {
  if (view.u8(0) !== 0xff || view.u8(1) !== MARKER.soi) throw new MalformedHeader('no JPEG start of image');
  let jfif: Density | undefined;
  let exif: TiffTags | undefined;
  let at = 2;
  for (;;) {
    if (view.u8(at) !== 0xff) throw new MalformedHeader(`no marker at byte ${at}`);
    while (view.u8(at) === 0xff) at++; // fill bytes may pad any marker
    const marker = view.u8(at++);
    if (isStandalone(marker)) continue;
    if (marker === MARKER.sos || marker === MARKER.eoi || marker === MARKER.soi)
      throw new MalformedHeader('no frame header before the image data');
    const length = view.u16(at);
    if (length < 2) throw new MalformedHeader(`segment length ${length}`);
    const start = at + 2;
    const end = at + length;
    if (isFrameHeader(marker)) {
      const height = view.u16(start + 1);
      const width = view.u16(start + 3);
      if (width === 0 || height === 0) throw new MalformedHeader(`frame of ${width} x ${height} pixels`);
      const density = hasDensity(exif?.density) ? exif.density : (jfif ?? NO_DENSITY);
      return displayed(width, height, exif?.orientation ?? 1, density);
    }
    if (marker === MARKER.app0 && jfif === undefined && length >= 14 && view.ascii(start, 5) === 'JFIF\0')
      jfif = jfifDensity(view, start);
    if (marker === MARKER.app1 && exif === undefined && length >= 8 && view.ascii(start, 6) === 'Exif\0\0')
      exif = readEmbeddedExif(view, start, end);
    at = end;
  }
}
