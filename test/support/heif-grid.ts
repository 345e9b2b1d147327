/**
 * HEIF grid images written box by box around one real coded tile (a single-image HEIF that heif-enc or
 * sharp wrote): the tile's coded data, its properties, and a `grid` item over columns x rows tile items,
 * as iPhones write their photos (512 x 512 HEVC tiles) and as decompression bombs abuse it. Each tile item
 * has its own copy of the data, or all lie at the one copy (a few KB however many tiles). The parsing here is
 * the tests' own, independent of the service's header reader.
 */
import { readFileSync } from 'node:fs';

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const u16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
export const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};
export const box = (type: string, ...body: Uint8Array[]) =>
  Buffer.concat([u32(8 + body.reduce((sum, part) => sum + part.length, 0)), latin1(type), ...body]);
const fullBox = (type: string, version: number, flags: number, ...body: Uint8Array[]) =>
  box(type, Buffer.from([version, flags >> 16, (flags >> 8) & 0xff, flags & 0xff]), ...body);

interface Parsed {
  type: string;
  body: Buffer;
}

function boxes(bytes: Buffer): Parsed[] {
  const found: Parsed[] = [];
  for (let at = 0; at + 8 <= bytes.length;) {
    const size = bytes.readUInt32BE(at);
    found.push({ type: bytes.toString('latin1', at + 4, at + 8), body: bytes.subarray(at + 8, at + size) });
    at += size;
  }
  return found;
}
const child = (list: Parsed[], type: string): Parsed => {
  const found = list.find((candidate) => candidate.type === type);
  if (!found) throw new Error(`no ${type} box`);
  return found;
};

/** The coded tile of a single-image HEIF written by heif-enc or sharp: its item type, its properties other than ispe, its data. */
function codedTile(file: Buffer): { itemType: string; properties: Buffer[]; data: Buffer } {
  const meta = boxes(child(boxes(file), 'meta').body.subarray(4));
  const item = child(meta, 'pitm').body.readUInt16BE(4);
  const infe = boxes(child(meta, 'iinf').body.subarray(6)).find(({ body }) => body.readUInt16BE(4) === item)!;
  const iprp = boxes(child(meta, 'iprp').body);
  const properties = boxes(child(iprp, 'ipco').body);
  const ipma = child(iprp, 'ipma').body;
  const wide = (ipma[3]! & 1) === 1;
  const associated: number[] = [];
  for (let at = 8, entry = 0; entry < ipma.readUInt32BE(4); entry++) {
    const id = ipma.readUInt16BE(at);
    const count = ipma[at + 2]!;
    at += 3;
    for (let i = 0; i < count; i++, at += wide ? 2 : 1)
      if (id === item) associated.push(wide ? ipma.readUInt16BE(at) & 0x7fff : ipma[at]! & 0x7f);
  }
  // iloc version 0 or 1 with 4-byte offsets and lengths, as both encoders write it (sharp adds a base offset).
  const iloc = child(meta, 'iloc').body;
  const version = iloc[0]!;
  const baseSize = iloc[5]! >> 4;
  let at = 8;
  let data: Buffer | undefined;
  for (let entry = 0, count = iloc.readUInt16BE(6); entry < count; entry++) {
    const id = iloc.readUInt16BE(at);
    at += version === 1 ? 6 : 4;
    const base = baseSize === 4 ? iloc.readUInt32BE(at) : 0;
    at += baseSize;
    const extents = iloc.readUInt16BE(at);
    at += 2;
    const [offset, length] = [base + iloc.readUInt32BE(at), iloc.readUInt32BE(at + 4)];
    at += extents * 8;
    if (id === item) data = file.subarray(offset, offset + length);
  }
  if (!data) throw new Error('no data for the coded tile');
  const kept = associated
    .map((index) => properties[index - 1]!)
    .filter((property) => property.type !== 'ispe')
    .map(({ type, body }) => box(type, body));
  return { itemType: infe.body.toString('latin1', 8, 12), properties: kept, data };
}

export const ispe = (width: number, height: number) => fullBox('ispe', 0, 0, u32(width), u32(height));

export interface GridOptions {
  columns: number;
  rows: number;
  /** The grid's output size (its ispe); tiles past it on the right and bottom are cropped. */
  width: number;
  height: number;
  /** The tile's side in pixels, as coded. */
  tileSide: number;
  /** Properties of the grid item after its ispe (e.g. a `clap`). */
  gridProperties?: Buffer[];
  /** Every tile item at the one copy of the data, rather than a copy each. */
  sharedTile?: boolean;
}

/** A HEIF whose primary item is a grid of `columns` x `rows` tile items, each the coded tile of `tileFile` (HEVC or AV1). */
export function heifGrid(
  tileFile: Buffer,
  { columns, rows, width, height, tileSide, gridProperties = [], sharedTile = false }: GridOptions,
): Buffer {
  const tile = codedTile(tileFile);
  const brand = tile.itemType === 'av01' ? 'avif' : 'heic';
  // ipco: the tile's properties, its ispe, then the grid's.
  const ipco = [...tile.properties, ispe(tileSide, tileSide), ispe(width, height), ...gridProperties];
  const gridIndexes = [ispe(width, height), ...gridProperties].map((_, index) => tile.properties.length + 2 + index);
  const tileProperties = tile.properties.map((_, index) => 0x80 | (index + 1)).concat(tile.properties.length + 1);
  const tiles = Array.from({ length: columns * rows }, (_, index) => index + 2); // item 1 is the grid
  const ipma = fullBox(
    'ipma',
    0,
    0,
    u32(1 + tiles.length),
    u16(1),
    Buffer.from([gridIndexes.length, ...gridIndexes]),
    ...tiles.map((item) => Buffer.concat([u16(item), Buffer.from([tileProperties.length, ...tileProperties])])),
  );
  const gridDescription = Buffer.concat([Buffer.from([0, 1, rows - 1, columns - 1]), u32(width), u32(height)]);
  const tileAt = (tileOffset: number, index: number) => tileOffset + (sharedTile ? 0 : index * tile.data.length);
  const meta = (tileOffset: number) =>
    fullBox(
      'meta',
      0,
      0,
      fullBox('hdlr', 0, 0, u32(0), latin1('pict'), Buffer.alloc(13)),
      fullBox('pitm', 0, 0, u16(1)),
      fullBox(
        'iinf',
        0,
        0,
        u16(1 + tiles.length),
        fullBox('infe', 2, 0, u16(1), u16(0), latin1('grid'), Buffer.from([0])),
        ...tiles.map((item) => fullBox('infe', 2, 1, u16(item), u16(0), latin1(tile.itemType), Buffer.from([0]))),
      ),
      fullBox('iref', 0, 0, box('dimg', u16(1), u16(tiles.length), ...tiles.map(u16))),
      // iloc version 1: item 1 (the grid's description) in idat; the tile items in mdat.
      fullBox(
        'iloc',
        1,
        0,
        Buffer.from([0x44, 0x00]),
        u16(1 + tiles.length),
        Buffer.concat([u16(1), u16(1), u16(0), u16(1), u32(0), u32(gridDescription.length)]),
        ...tiles.map((item, index) =>
          Buffer.concat([u16(item), u16(0), u16(0), u16(1), u32(tileAt(tileOffset, index)), u32(tile.data.length)]),
        ),
      ),
      box('idat', gridDescription),
      box('iprp', box('ipco', ...ipco), ipma),
    );
  const ftyp = box('ftyp', latin1(brand), u32(0), latin1('mif1'), latin1('miaf'), latin1(brand));
  const tileOffset = ftyp.length + meta(0).length + 8; // past the mdat box header
  const data = sharedTile ? [tile.data] : tiles.map(() => tile.data);
  return Buffer.concat([ftyp, meta(tileOffset), box('mdat', ...data)]);
}

/** A coded tile under test/fixtures/images/ (make-bomb-tiles.sh, make-photo-tile.sh). */
export const tileFixture = (name: string): Buffer =>
  readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));
