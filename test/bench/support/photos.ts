/**
 * Photo stand-ins for the renditions benchmarks, made with sharp: grain at a quarter of the size, enlarged
 * (so it has the texture of a photo, not of white noise) and tinted per photo, as JPEG (quality 85 gives the
 * 3-4 MB of a 12-megapixel phone photo). HEIC is made from them with libheif's `heif-enc`
 * (Debian's libheif-examples), which the benchmark needs. Files are kept in the temporary directory between
 * runs: making them is slower than what is measured.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';

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

/** The photo as HEIC (HEVC), made with libheif's heif-enc: `npm run bench` needs it (apt-get install -y libheif-examples). */
export async function photoHeic(width: number, height: number): Promise<string> {
  const path = join(CACHE, `photo-${width}x${height}.heic`);
  if (existsSync(path)) return path;
  try {
    await promisify(execFile)('heif-enc', ['-q', '50', '-o', `${path}.part`, await photoJpeg(width, height)], {
      timeout: 600_000,
    });
  } catch (error) {
    throw new Error(
      `the HEIC photo needs libheif's heif-enc (apt-get install -y libheif-examples): ${(error as Error).message}`,
    );
  }
  await promisify(execFile)('mv', [`${path}.part`, path]);
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
