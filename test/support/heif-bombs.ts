/**
 * HEIF decompression bombs, written box by box around one real coded tile (a flat 2048 x 2048 image that
 * test/fixtures/images/make-bomb-tiles.sh encodes with libheif's heif-enc for HEVC and sharp for AV1, about
 * 1 KB): a grid of N x N tile items whose data all lie at that one coded tile, so the file stays a few KB
 * while decoding it makes N x N x 4 megapixels. (A grid naming one tile item N x N times is no bomb for
 * libheif 1.20 on: it refuses the repeated references.) Variants hide that from a reader of the displayed size: a `clap` crop to 64 x 64,
 * or a second `ispe` of 64 x 64 after the true one. The boxes are written with heif-boxes.ts.
 */
import { readFileSync } from 'node:fs';
import { box, codedImage, fullBox, latin1, u16, u32 } from './heif-boxes.ts';

export interface BombOptions {
  /** Cells per side: the grid decodes cells x cells tiles of 2048 x 2048. */
  cells: number;
  /** How the grid hides its size: a 64 x 64 clean-aperture crop, or a second ispe of 64 x 64. */
  disguise: 'clap' | 'second-ispe';
}

export const BOMB_TILE_SIDE = 2048;

/** A HEIF grid of `cells` x `cells` references to one coded 2048 x 2048 tile of `tileFile` (HEVC or AV1). */
export function heifGridBomb(tileFile: Buffer, { cells, disguise }: BombOptions): Buffer {
  const tile = codedImage(tileFile);
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
