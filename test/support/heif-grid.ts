/**
 * HEIF grid images written box by box around one real coded tile (a single-image HEIF that heif-enc or
 * sharp wrote): the tile's coded data, its properties, and a `grid` item over columns x rows tile items,
 * as iPhones write their photos (512 x 512 HEVC tiles) and as decompression bombs abuse it. Each tile item
 * has its own copy of the data, or all lie at the one copy (a few KB however many tiles). The boxes are
 * written and the tile read with heif-boxes.ts.
 */
import { readFileSync } from 'node:fs';
import { box, codedImage, fullBox, latin1, u16, u32 } from './heif-boxes.ts';

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
  const tile = codedImage(tileFile);
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
