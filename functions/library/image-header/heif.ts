/**
 * HEIC/HEIF/AVIF (ISO-BMFF, ISO/IEC 23008-12): the primary item's properties say its size and how it is
 * shown: `ispe` (the coded size of the whole image, a grid included), `clap` (clean aperture: the displayed
 * crop), `irot` (anti-clockwise quarter turns) and `imir` (mirror), applied in the order ipma lists them.
 * Readers apply these transforms when decoding, and the HEIF specification tells them to ignore EXIF
 * orientation, so the EXIF block (in the item data) is not read: Orientation reports the EXIF value
 * equivalent to the irot/imir transforms, 1 when there are none.
 *
 * What a decoder decodes is not what is displayed: a `clap` crop or a grid whose tiles all point at one
 * coded tile shows a few pixels and decodes hundreds of megapixels. heifDecoding counts what the
 * decoder will decode (each tile as often as the grid names it), and an item with more than one `ispe` is
 * refused: decoders disagree on which one counts.
 */
import { type ByteView, MalformedHeader } from './bytes.ts';
import { FULL_BOX, readHeifMeta, type Box, type HeifMeta } from './heif-boxes.ts';
import { NO_DENSITY, displayed, type ImageMetadata } from './metadata.ts';
import { orientationOf, type Transform } from './transforms.ts';

function transform(view: ByteView, found: Box): Transform | undefined {
  switch (found.type) {
    case 'irot':
      return { irot: view.u8(found.body) & 3 };
    case 'imir':
      return { imir: view.u8(found.body) & 1 };
    case 'clap': {
      const fraction = (at: number) => view.u32(at) / view.u32(at + 4);
      const [width, height] = [Math.round(fraction(found.body)), Math.round(fraction(found.body + 8))];
      return Number.isFinite(width) && Number.isFinite(height) && width > 0 && height > 0
        ? { clap: [width, height] }
        : undefined;
    }
    default:
      return undefined;
  }
}

/** The item's properties, which must name exactly one non-empty coded size (`ispe`). */
function sizedItem(meta: HeifMeta, item: number): { properties: Box[]; width: number; height: number } {
  const properties = meta.properties(item);
  if (!properties) throw new MalformedHeader(`no properties for item ${item}`);
  const sizes = properties.filter((found) => found.type === 'ispe');
  if (sizes.length > 1) throw new MalformedHeader(`item ${item} declares ${sizes.length} image sizes (ispe)`);
  const [width, height] = sizes[0]
    ? [meta.view.u32(sizes[0].body + FULL_BOX), meta.view.u32(sizes[0].body + FULL_BOX + 4)]
    : [0, 0];
  if (width === 0 || height === 0) throw new MalformedHeader(`no image size for item ${item}`);
  return { properties, width, height };
}

export function readHeif(view: ByteView): ImageMetadata {
  const meta = readHeifMeta(view);
  const { properties, width, height } = sizedItem(meta, meta.primary);
  const transforms = properties.flatMap((found) => transform(view, found) ?? []);
  const shown = orientationOf(width, height, transforms);
  return displayed(shown.width, shown.height, shown.orientation, NO_DENSITY);
}

/** A grid's output size from its description (ISO/IEC 23008-12, 6.6.2.3.2). */
function gridOutput(meta: HeifMeta, item: number): [number, number] {
  const data = meta.dataOf(item);
  const at = data && 'inFile' in data ? data.inFile : data && meta.idat ? meta.idat.body + data.inIdat : undefined;
  if (at === undefined) throw new MalformedHeader(`the description of grid ${item} is not in the file or its idat`);
  const view = meta.view;
  if (view.u8(at) !== 0) throw new MalformedHeader(`grid ${item} has an unknown version`);
  const wide = (view.u8(at + 1) & 1) === 1;
  return wide ? [view.u32(at + 4), view.u32(at + 8)] : [view.u16(at + 4), view.u16(at + 6)];
}

/** Derived images inside derived images: a grid of grids is as deep as files go (libheif decodes no deeper). */
const MAX_DERIVATION_DEPTH = 3;

/** What decoding a HEIF's primary image takes: the pixels it produces, and the codec of its coded images. */
export interface HeifDecoding {
  pixels: number;
  /** The item type of the first coded image it is made of (`hvc1` HEVC, `av01` AV1); undefined when unnamed. */
  codec: string | undefined;
}

/**
 * The pixels decoding the primary image produces: a coded image's `ispe`; for a derived one (grid, overlay,
 * identity) the larger of its canvas and the sum over the images it is made of, each counted every time it is
 * referenced. A grid's described output size must equal its `ispe`. Needs the whole file (the grid's
 * description may lie in the media data).
 */
export function heifDecoding(view: ByteView): HeifDecoding {
  const meta = readHeifMeta(view);
  const known = new Map<number, number>();
  let codec: string | undefined;
  const pixels = (item: number, depth: number): number => {
    const counted = known.get(item);
    if (counted !== undefined) return counted;
    const { width, height } = sizedItem(meta, item);
    const parts = meta.derivedFrom(item);
    let count = width * height;
    if (parts.length === 0) codec ??= meta.itemType(item);
    else {
      if (depth >= MAX_DERIVATION_DEPTH) throw new MalformedHeader(`images derived more than ${depth} deep`);
      if (meta.itemType(item) === 'grid') {
        const [outputWidth, outputHeight] = gridOutput(meta, item);
        if (outputWidth !== width || outputHeight !== height)
          throw new MalformedHeader(
            `grid ${item} describes ${outputWidth} x ${outputHeight} pixels but declares ${width} x ${height} (ispe)`,
          );
      }
      count = Math.max(
        count,
        parts.reduce((sum, part) => sum + pixels(part, depth + 1), 0),
      );
    }
    known.set(item, count);
    return count;
  };
  return { pixels: pixels(meta.primary, 0), codec };
}
