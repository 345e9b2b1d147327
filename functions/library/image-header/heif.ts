/**
 * HEIC/HEIF/AVIF (ISO-BMFF, ISO/IEC 23008-12): the top-level `meta` box names the primary item (`pitm`);
 * `iprp/ipma` associates it with properties in `iprp/ipco`: `ispe` (the coded size of the whole image, a grid
 * included), `clap` (clean aperture: the displayed crop), `irot` (anti-clockwise quarter turns) and `imir`
 * (mirror), applied in the order ipma lists them. Readers apply these transforms when decoding, and the HEIF
 * specification tells them to ignore EXIF orientation, so the EXIF block (in the item data) is not read:
 * Orientation reports the EXIF value equivalent to the irot/imir transforms, 1 when there are none.
 */
import { ByteView, MalformedHeader } from './bytes.ts';
import { NO_DENSITY, displayed, type ImageMetadata } from './metadata.ts';
import { orientationOf, type Transform } from './transforms.ts';

interface Box {
  type: string;
  /** First byte of the payload. */
  body: number;
  end: number;
}

function box(view: ByteView, at: number, parentEnd: number): Box {
  const size = view.u32(at);
  const type = view.ascii(at + 4, 4);
  const large = size === 1; // a 64-bit size follows the type
  if (large && view.u32(at + 8) !== 0) throw new MalformedHeader(`${type} box beyond 4 GiB`);
  const body = at + (large ? 16 : 8);
  const end = size === 0 ? parentEnd : at + (large ? view.u32(at + 12) : size); // size 0: up to the end of the enclosing box or file
  if (end < body) throw new MalformedHeader(`${type} box of ${end - at} bytes`);
  return { type, body, end };
}

/** The boxes directly inside [start, end). */
function children(view: ByteView, start: number, end: number): Box[] {
  const found: Box[] = [];
  for (let at = start; at < end;) {
    const child = box(view, at, end);
    found.push(child);
    at = child.end;
  }
  return found;
}

const FULL_BOX = 4; // version (1 byte) and flags (3 bytes)

function primaryItem(view: ByteView, pitm: Box): number {
  return view.u8(pitm.body) === 0 ? view.u16(pitm.body + FULL_BOX) : view.u32(pitm.body + FULL_BOX);
}

/** The 1-based ipco property indexes associated with `item`, in the order ipma lists them; undefined when it lists none. */
function associations(view: ByteView, ipma: Box, item: number): number[] | undefined {
  const version = view.u8(ipma.body);
  const wideIndex = (view.u8(ipma.body + 3) & 1) === 1;
  const entries = view.u32(ipma.body + FULL_BOX);
  for (let at = ipma.body + FULL_BOX + 4, entry = 0; entry < entries; entry++) {
    const id = version < 1 ? view.u16(at) : view.u32(at);
    at += version < 1 ? 2 : 4;
    const count = view.u8(at++);
    const indexes: number[] = [];
    for (let i = 0; i < count; i++, at += wideIndex ? 2 : 1)
      indexes.push(wideIndex ? view.u16(at) & 0x7fff : view.u8(at) & 0x7f);
    if (id === item) return indexes;
  }
  return undefined;
}

function property(view: ByteView, found: Box): Transform | { ispe: [number, number] } | undefined {
  switch (found.type) {
    case 'ispe':
      return { ispe: [view.u32(found.body + FULL_BOX), view.u32(found.body + FULL_BOX + 4)] };
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

export function readHeif(view: ByteView): ImageMetadata {
  const top = (at: number): Box => box(view, at, Number.MAX_SAFE_INTEGER);
  if (top(0).type !== 'ftyp') throw new MalformedHeader('no ftyp box');
  let meta = top(0);
  while (meta.type !== 'meta') meta = top(meta.end); // a meta after the media data is read only within the header limit
  const metaChildren = children(view, meta.body + FULL_BOX, meta.end);
  const pitm = metaChildren.find((child) => child.type === 'pitm');
  const iprp = metaChildren.find((child) => child.type === 'iprp');
  if (!pitm || !iprp) throw new MalformedHeader('no primary item or item properties');
  const iprpChildren = children(view, iprp.body, iprp.end);
  const ipco = iprpChildren.find((child) => child.type === 'ipco');
  const ipmas = iprpChildren.filter((child) => child.type === 'ipma');
  if (!ipco || ipmas.length === 0) throw new MalformedHeader('no property container or associations');
  const properties = children(view, ipco.body, ipco.end);
  const item = primaryItem(view, pitm);
  const indexes = ipmas.map((ipma) => associations(view, ipma, item)).find((found) => found !== undefined);
  if (!indexes) throw new MalformedHeader(`no properties for the primary item ${item}`);

  let size: [number, number] | undefined;
  const transforms: Transform[] = [];
  for (const index of indexes) {
    const found = index === 0 ? undefined : properties[index - 1];
    const value = found && property(view, found);
    if (value && 'ispe' in value) size = value.ispe;
    else if (value) transforms.push(value);
  }
  if (!size || size[0] === 0 || size[1] === 0) throw new MalformedHeader('no image size for the primary item');
  const { width, height, orientation } = orientationOf(size[0], size[1], transforms);
  return displayed(width, height, orientation, NO_DENSITY);
}
