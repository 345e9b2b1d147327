/**
 * The TIFF structure (byte order, IFD0 entries) shared by TIFF files and by the EXIF blocks of JPEG (APP1),
 * PNG (eXIf) and WebP (EXIF). Only IFD0 is read: it holds the main image's Orientation, X/YResolution and
 * ResolutionUnit (and, in a TIFF file, its ImageWidth/ImageLength); IFD1 describes an EXIF thumbnail.
 */
import { ByteView, CENTIMETRES_PER_INCH, MalformedHeader, OutOfReach, toDpi } from './bytes.ts';
import { NO_DENSITY, validOrientation, type Density } from './metadata.ts';

export interface TiffTags {
  width: number | undefined;
  height: number | undefined;
  /** 1-8; 1 when absent or invalid. */
  orientation: number;
  density: Density;
}

const TAG = {
  imageWidth: 0x0100,
  imageLength: 0x0101,
  orientation: 0x0112,
  xResolution: 0x011a,
  yResolution: 0x011b,
  resolutionUnit: 0x0128,
} as const;
const TYPE = { short: 3, long: 4, rational: 5 } as const;
/** ResolutionUnit values: 1 none (aspect ratio only), 2 inch (the default), 3 centimetre. */
const UNITS_PER_INCH: Record<number, number> = { 2: 1, 3: CENTIMETRES_PER_INCH };
/** A sane bound on IFD0's entries: a real one has a few dozen; garbage offsets would otherwise ask for megabytes. */
const MAX_ENTRIES = 1000;
const EXIF_PREFIX = 'Exif\0\0';

/**
 * A RATIONAL stored at `at`; undefined when its denominator is 0, or when it lies in bytes that went by
 * before the IFD was reached (a TIFF read from a window at its IFD): the resolution is then undeclared.
 */
function rational(tiff: ByteView, at: number): number | undefined {
  try {
    const denominator = tiff.u32(at + 4);
    return denominator > 0 ? tiff.u32(at) / denominator : undefined;
  } catch (error) {
    if (error instanceof OutOfReach) return undefined;
    throw error;
  }
}

/** Reads IFD0 of the TIFF structure starting at `start` in `view` (whose offsets count from `start`). */
export function readTiffTags(view: ByteView, start: number): TiffTags {
  const order = view.ascii(start, 2);
  if (order !== 'II' && order !== 'MM') throw new MalformedHeader('no TIFF byte order mark');
  const tiff = view.withOrder(order === 'II');
  if (tiff.u16(start + 2) !== 42) throw new MalformedHeader('no TIFF magic number');
  const ifd = start + tiff.u32(start + 4);
  const count = tiff.u16(ifd);
  if (count === 0 || count > MAX_ENTRIES) throw new MalformedHeader(`IFD0 with ${count} entries`);
  tiff.need(ifd, ifd + 2 + count * 12);

  const values = new Map<number, number>();
  for (let entry = ifd + 2; entry < ifd + 2 + count * 12; entry += 12) {
    const tag = tiff.u16(entry);
    const type = tiff.u16(entry + 2);
    if (!Object.values(TAG).includes(tag as never)) continue;
    if (type === TYPE.short) values.set(tag, tiff.u16(entry + 8));
    else if (type === TYPE.long) values.set(tag, tiff.u32(entry + 8));
    else if (type === TYPE.rational) {
      const value = rational(tiff, start + tiff.u32(entry + 8));
      if (value !== undefined) values.set(tag, value);
    }
  }

  const unitsPerInch = UNITS_PER_INCH[values.get(TAG.resolutionUnit) ?? 2];
  const x = values.get(TAG.xResolution);
  const y = values.get(TAG.yResolution);
  const density =
    unitsPerInch !== undefined && x !== undefined && y !== undefined
      ? { dpiX: toDpi(x, unitsPerInch), dpiY: toDpi(y, unitsPerInch) }
      : NO_DENSITY;
  return {
    width: values.get(TAG.imageWidth),
    height: values.get(TAG.imageLength),
    orientation: validOrientation(values.get(TAG.orientation)),
    density,
  };
}

/**
 * The tags of an embedded EXIF block occupying [start, end) of `view`, or undefined when the block is no
 * readable TIFF structure: a broken EXIF block does not make the image unreadable, it only declares nothing.
 * The block may begin with JPEG's `Exif\0\0` prefix (APP1 always, some PNG and WebP writers too).
 */
export function readEmbeddedExif(view: ByteView, start: number, end: number): TiffTags | undefined {
  try {
    const block = view.block(start, end);
    return readTiffTags(block, block.ascii(start, 6) === EXIF_PREFIX ? start + EXIF_PREFIX.length : start);
  } catch (error) {
    if (error instanceof MalformedHeader) return undefined;
    throw error;
  }
}
