/**
 * The boxes of a HEIF file's top-level `meta` box (ISO/IEC 14496-12 and 23008-12) that say what its items
 * are and how the primary one is built: `pitm` (primary item), `iprp` (properties and their associations),
 * `iinf` (item types: `grid`, `iden`, `iovl` are derived from other items, `hvc1`/`av01` are coded),
 * `iref` (`dimg`: the items a derived image is made of) and `iloc`/`idat` (where an item's data is).
 */
import { ByteView, MalformedHeader } from './bytes.ts';

export interface Box {
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

export const FULL_BOX = 4; // version (1 byte) and flags (3 bytes)

/** Where an item's data starts: in the file, or in the meta box's `idat`; undefined for other constructions. */
export type ItemData = { inFile: number } | { inIdat: number } | undefined;

export interface HeifMeta {
  view: ByteView;
  primary: number;
  /** The property boxes associated with `item`, in the order ipma lists them; undefined when it lists none. */
  properties(item: number): Box[] | undefined;
  /** The item's four-character type; undefined when the file has no iinf entry for it (old infe versions). */
  itemType(item: number): string | undefined;
  /** The items `item` is derived from (`dimg` references), in order, repeats kept. */
  derivedFrom(item: number): number[];
  /** Where the item's data starts (its first extent). */
  dataOf(item: number): ItemData;
  idat: Box | undefined;
}

/** A 0-, 4- or 8-byte unsigned field of iloc; 8-byte values must fit in 32 bits. */
function sizedField(view: ByteView, at: number, size: number): number {
  if (size === 0) return 0;
  if (size === 4) return view.u32(at);
  if (size === 8 && view.u32(at) === 0) return view.u32(at + 4);
  throw new MalformedHeader(size === 8 ? 'an item offset beyond 4 GiB' : `an iloc field of ${size} bytes`);
}

function itemLocations(view: ByteView, iloc: Box): Map<number, ItemData> {
  const version = view.u8(iloc.body);
  const sizes = view.u8(iloc.body + FULL_BOX);
  const more = view.u8(iloc.body + FULL_BOX + 1);
  const [offsetSize, lengthSize, baseOffsetSize] = [sizes >> 4, sizes & 15, more >> 4];
  const indexSize = version === 1 || version === 2 ? more & 15 : 0;
  let at = iloc.body + FULL_BOX + 2;
  const count = version < 2 ? view.u16(at) : view.u32(at);
  at += version < 2 ? 2 : 4;
  const found = new Map<number, ItemData>();
  for (let entry = 0; entry < count; entry++) {
    const item = version < 2 ? view.u16(at) : view.u32(at);
    at += version < 2 ? 2 : 4;
    const method = version === 1 || version === 2 ? view.u16(at) & 15 : 0;
    if (version === 1 || version === 2) at += 2;
    at += 2; // data_reference_index
    const base = sizedField(view, at, baseOffsetSize);
    at += baseOffsetSize;
    const extents = view.u16(at);
    at += 2;
    const first = base + (extents > 0 ? sizedField(view, at + indexSize, offsetSize) : 0);
    at += extents * (indexSize + offsetSize + lengthSize);
    found.set(item, method === 0 ? { inFile: first } : method === 1 ? { inIdat: first } : undefined);
  }
  return found;
}

function itemTypes(view: ByteView, iinf: Box | undefined): Map<number, string> {
  const found = new Map<number, string>();
  if (!iinf) return found;
  const start = iinf.body + FULL_BOX + (view.u8(iinf.body) === 0 ? 2 : 4);
  for (const infe of children(view, start, iinf.end)) {
    const version = infe.type === 'infe' ? view.u8(infe.body) : 0;
    if (version < 2) continue; // versions 0 and 1 name no item type
    const item = version === 2 ? view.u16(infe.body + FULL_BOX) : view.u32(infe.body + FULL_BOX);
    found.set(item, view.ascii(infe.body + FULL_BOX + (version === 2 ? 4 : 6), 4));
  }
  return found;
}

function derivations(view: ByteView, iref: Box | undefined): Map<number, number[]> {
  const found = new Map<number, number[]>();
  if (!iref) return found;
  const wide = view.u8(iref.body) !== 0;
  const id = (at: number) => (wide ? view.u32(at) : view.u16(at));
  const idSize = wide ? 4 : 2;
  for (const reference of children(view, iref.body + FULL_BOX, iref.end)) {
    if (reference.type !== 'dimg') continue;
    const from = id(reference.body);
    const count = view.u16(reference.body + idSize);
    const to = Array.from({ length: count }, (_, i) => id(reference.body + idSize + 2 + i * idSize));
    found.set(from, [...(found.get(from) ?? []), ...to]);
  }
  return found;
}

/**
 * The 1-based ipco property indexes of each item, in the order ipma lists them (the first ipma box that lists
 * an item counts). One pass: a grid lists hundreds of tiles, and each is looked up.
 */
function associations(view: ByteView, ipmas: Box[]): Map<number, number[]> {
  const found = new Map<number, number[]>();
  for (const ipma of ipmas) {
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
      if (!found.has(id)) found.set(id, indexes);
    }
  }
  return found;
}

/** The meta box's description of the items; the boxes a reader does not need for the primary item are read lazily. */
export function readHeifMeta(view: ByteView): HeifMeta {
  const top = (at: number): Box => box(view, at, Number.MAX_SAFE_INTEGER);
  if (top(0).type !== 'ftyp') throw new MalformedHeader('no ftyp box');
  let meta = top(0);
  while (meta.type !== 'meta') meta = top(meta.end); // a meta after the media data is read only within the header limit
  const metaChildren = children(view, meta.body + FULL_BOX, meta.end);
  const child = (type: string) => metaChildren.find((found) => found.type === type);
  const pitm = child('pitm');
  const iprp = child('iprp');
  if (!pitm || !iprp) throw new MalformedHeader('no primary item or item properties');
  const iprpChildren = children(view, iprp.body, iprp.end);
  const ipco = iprpChildren.find((found) => found.type === 'ipco');
  const ipmas = iprpChildren.filter((found) => found.type === 'ipma');
  if (!ipco || ipmas.length === 0) throw new MalformedHeader('no property container or associations');
  const propertyBoxes = children(view, ipco.body, ipco.end);
  const iloc = child('iloc');
  let associated: Map<number, number[]> | undefined;
  let types: Map<number, string> | undefined;
  let derived: Map<number, number[]> | undefined;
  let locations: Map<number, ItemData> | undefined;
  return {
    view,
    primary: view.u8(pitm.body) === 0 ? view.u16(pitm.body + FULL_BOX) : view.u32(pitm.body + FULL_BOX),
    properties: (item) =>
      (associated ??= associations(view, ipmas))
        .get(item)
        ?.flatMap((index) => (index > 0 && propertyBoxes[index - 1] ? [propertyBoxes[index - 1]!] : [])),
    itemType: (item) => (types ??= itemTypes(view, child('iinf'))).get(item),
    derivedFrom: (item) => (derived ??= derivations(view, child('iref'))).get(item) ?? [],
    dataOf: (item) => (locations ??= iloc ? itemLocations(view, iloc) : new Map()).get(item),
    idat: child('idat'),
  };
}
