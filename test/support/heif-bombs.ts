/**
 * HEIF decompression bombs, written box by box around one real coded tile (a flat 2048 x 2048 image that
 * test/fixtures/images/make-bomb-tiles.sh encodes with libheif's heif-enc for HEVC and sharp for AV1, about
 * 1 KB): a grid of N x N tile items whose data all lie at that one coded tile, so the file stays a few KB
 * while decoding it makes N x N x 4 megapixels. (A grid naming one tile item N x N times is no bomb for
 * libheif 1.20 on: it refuses the repeated references.) Variants hide that from a reader of the displayed size: a `clap` crop to 64 x 64,
 * or a second `ispe` of 64 x 64 after the true one. The parsing here is the test's own, independent of the
 * service's header reader.
 */
import { readFileSync } from 'node:fs';

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const u16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};
const box = (type: string, ...body: Uint8Array[]) =>
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

export interface BombOptions {
  /** Cells per side: the grid decodes cells x cells tiles of 2048 x 2048. */
  cells: number;
  /** How the grid hides its size: a 64 x 64 clean-aperture crop, or a second ispe of 64 x 64. */
  disguise: 'clap' | 'second-ispe';
}

export const BOMB_TILE_SIDE = 2048;

/** A HEIF grid of `cells` x `cells` references to one coded 2048 x 2048 tile of `tileFile` (HEVC or AV1). */
export function heifGridBomb(tileFile: Buffer, { cells, disguise }: BombOptions): Buffer {
  const tile = codedTile(tileFile);
  const side = cells * BOMB_TILE_SIDE;
  const brand = tile.itemType === 'av01' ? 'avif' : 'heic';
  const ispe = (width: number, height: number) => fullBox('ispe', 0, 0, u32(width), u32(height));
  const clap = (width: number) => box('clap', u32(width), u32(1), u32(width), u32(1), u32(0), u32(1), u32(0), u32(1));
  // ipco: the tile's properties, its ispe, then the grid's.
  const ipco = [...tile.properties, ispe(BOMB_TILE_SIDE, BOMB_TILE_SIDE), ispe(side, side)];
  const gridProperties = [ipco.length];
  ipco.push(disguise === 'clap' ? clap(64) : ispe(64, 64));
  gridProperties.push(ipco.length);
  const tileProperties = tile.properties.map((_, index) => 0x80 | (index + 1)).concat(tile.properties.length + 1);
  const tiles = Array.from({ length: cells * cells }, (_, index) => index + 2); // item 1 is the grid
  const ipma = fullBox(
    'ipma',
    0,
    0,
    u32(1 + tiles.length),
    u16(1),
    Buffer.from([gridProperties.length, ...gridProperties]),
    ...tiles.map((item) => Buffer.concat([u16(item), Buffer.from([tileProperties.length, ...tileProperties])])),
  );
  const gridDescription = Buffer.concat([Buffer.from([0, 1, cells - 1, cells - 1]), u32(side), u32(side)]);
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
      // iloc version 1: item 1 (the grid's description) in idat; every tile item at the one coded tile in mdat.
      fullBox(
        'iloc',
        1,
        0,
        Buffer.from([0x44, 0x00]),
        u16(1 + tiles.length),
        Buffer.concat([u16(1), u16(1), u16(0), u16(1), u32(0), u32(gridDescription.length)]),
        ...tiles.map((item) =>
          Buffer.concat([u16(item), u16(0), u16(0), u16(1), u32(tileOffset), u32(tile.data.length)]),
        ),
      ),
      box('idat', gridDescription),
      box('iprp', box('ipco', ...ipco), ipma),
    );
  const ftyp = box('ftyp', latin1(brand), u32(0), latin1('mif1'), latin1('miaf'), latin1(brand));
  const tileOffset = ftyp.length + meta(0).length + 8; // past the mdat box header
  return Buffer.concat([ftyp, meta(tileOffset), box('mdat', tile.data)]);
}

const TILES = new URL('../fixtures/images/', import.meta.url);
/** The coded tiles make-bomb-tiles.sh wrote. */
export const bombTile = (codec: 'hevc' | 'av1'): Buffer =>
  readFileSync(new URL(codec === 'hevc' ? 'bomb-tile-2048.heic' : 'bomb-tile-2048.avif', TILES));
