/**
 * HEIF decompression bombs (./heif-grid.ts) around one real coded tile (a flat 2048 x 2048 image that
 * test/fixtures/images/make-bomb-tiles.sh encodes with libheif's heif-enc for HEVC and sharp for AV1, about
 * 1 KB): a grid of N x N tile items whose data all lie at that one coded tile, so the file stays a few KB
 * while decoding it makes N x N x 4 megapixels. (A grid naming one tile item N x N times is no bomb for
 * libheif 1.20 on: it refuses the repeated references.) Variants hide that from a reader of the displayed size: a `clap` crop to 64 x 64,
 * or a second `ispe` of 64 x 64 after the true one.
 */
import { box, u32 } from './heif-boxes.ts';
import { heifGrid, ispe, tileFixture } from './heif-grid.ts';

export interface BombOptions {
  /** Cells per side: the grid decodes cells x cells tiles of 2048 x 2048. */
  cells: number;
  /** How the grid hides its size: a 64 x 64 clean-aperture crop, or a second ispe of 64 x 64. */
  disguise: 'clap' | 'second-ispe';
}

export const BOMB_TILE_SIDE = 2048;

/** A HEIF grid of `cells` x `cells` references to one coded 2048 x 2048 tile of `tileFile` (HEVC or AV1). */
export function heifGridBomb(tileFile: Buffer, { cells, disguise }: BombOptions): Buffer {
  const side = cells * BOMB_TILE_SIDE;
  const clap = (width: number) => box('clap', u32(width), u32(1), u32(width), u32(1), u32(0), u32(1), u32(0), u32(1));
  return heifGrid(tileFile, {
    columns: cells,
    rows: cells,
    width: side,
    height: side,
    tileSide: BOMB_TILE_SIDE,
    gridProperties: [disguise === 'clap' ? clap(64) : ispe(64, 64)],
    sharedTile: true,
  });
}

/** The coded tiles make-bomb-tiles.sh wrote. */
export const bombTile = (codec: 'hevc' | 'av1'): Buffer =>
  tileFixture(codec === 'hevc' ? 'bomb-tile-2048.heic' : 'bomb-tile-2048.avif');
