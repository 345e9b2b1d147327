/**
 * Photo stand-ins for the renditions benchmarks, made with sharp: grain at a quarter of the size, enlarged
 * (so it has the texture of a photo, not of white noise) and tinted per photo, as JPEG (quality 85 gives the
 * 3-4 MB of a 12-megapixel phone photo); HEIC is tiled from a committed coded tile of the same grain. Files
 * are kept in the temporary directory between runs: making them is slower than what is measured.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { heifGrid, tileFixture } from '../../support/heif-grid.ts';

const CACHE = join(tmpdir(), 'photo-commerce-bench-photos');

/** A JPEG of `width` x `height`; `seed` tints it, so every photo has its own bytes. */
export async function photoJpeg(width: number, height: number, seed = 0, quality = 90): Promise<string> {
  mkdirSync(CACHE, { recursive: true });
  const path = join(CACHE, `photo-${width}x${height}-${seed}-q${quality}.jpg`);
  if (!existsSync(path)) {
    const grain = sharp({
      create: {
        width: Math.ceil(width / 4),
        height: Math.ceil(height / 4),
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 45 },
      },
    });
    const small = await grain.raw().toBuffer({ resolveWithObject: true });
    await sharp(small.data, { raw: small.info })
      .resize(width, height, { fit: 'fill', kernel: 'cubic' })
      .linear([0.8, 0.7 + (seed % 5) * 0.05, 0.9], [20 + seed * 9, 30, 10 + seed * 5])
      .jpeg({ quality })
      .toFile(`${path}.part`);
    await promisify(execFile)('mv', [`${path}.part`, path]);
  }
  return path;
}

/** The same photo as PNG (a format libvips decodes whole: no shrink-on-load). */
export async function photoPng(width: number, height: number): Promise<string> {
  const path = join(CACHE, `photo-${width}x${height}.png`);
  if (!existsSync(path))
    await sharp(await photoJpeg(width, height))
      .png({ compressionLevel: 1 })
      .toFile(path);
  return path;
}

/** The side of the HEVC tiles of an iPhone's HEIC, and of test/fixtures/images/photo-tile-512.heic. */
const HEIC_TILE_SIDE = 512;

/**
 * The photo as HEIC the way iPhones write it: a grid of 512 x 512 HEVC tiles cropped to the photo's size,
 * each tile the one coded tile of the photo's grain committed in test/fixtures/images (make-photo-tile.sh),
 * so no encoder is needed; every tile is decoded on its own, as in a phone's photo.
 */
export async function photoHeic(width: number, height: number): Promise<string> {
  mkdirSync(CACHE, { recursive: true });
  const path = join(CACHE, `photo-${width}x${height}-tiled.heic`);
  if (!existsSync(path)) {
    const grid = heifGrid(tileFixture('photo-tile-512.heic'), {
      columns: Math.ceil(width / HEIC_TILE_SIDE),
      rows: Math.ceil(height / HEIC_TILE_SIDE),
      width,
      height,
      tileSide: HEIC_TILE_SIDE,
    });
    writeFileSync(`${path}.part`, grid);
    renameSync(`${path}.part`, path);
  }
  return path;
}

/** The photo as an uncompressed 16-bit RGB TIFF: 6 bytes a pixel, the largest originals scans give. */
export async function photoTiff16(width: number, height: number): Promise<string> {
  const path = join(CACHE, `photo-${width}x${height}-16bit.tif`);
  if (!existsSync(path)) {
    await sharp(await photoJpeg(width, height))
      .toColourspace('rgb16')
      .tiff({ compression: 'none' })
      .toFile(`${path}.part`);
    await promisify(execFile)('mv', [`${path}.part`, path]);
  }
  return path;
}
