/**
 * What decoding an image takes (functions/library/image-header/decoding.ts), read from the whole file: the
 * pixels the decoder produces, which for HEIF is not the displayed size (grids counted tile by tile, crops
 * ignored), and the codec that picks the decoder. The bombs are test/support/heif-bombs.ts's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodingOf, ImageHeaderReader } from '../../functions/library/image-header/index.ts';
import { MalformedHeader } from '../../functions/library/image-header/bytes.ts';
import { bombTile, heifGridBomb } from '../support/heif-bombs.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));
const header = (bytes: Buffer, type: string) => {
  const reader = new ImageHeaderReader(type);
  return reader.add(bytes) ?? reader.end();
};
const malformed = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof MalformedHeader) return error.message;
    throw error;
  }
  throw new Error('expected MalformedHeader');
};

describe('pixels decoded', () => {
  it.each([
    ['jpeg-exif-orientation-6.jpg', 'image/jpeg', 600, undefined],
    ['png-phys-300dpi.png', 'image/png', 600, undefined],
    ['tiff-le-300dpi.tif', 'image/tiff', 600, undefined],
    // heif-enc's grid: a 30 x 20 canvas over one 64 x 64 tile, which is decoded whole.
    ['heic.heic', 'image/heic', 64 * 64, 'hvc1'],
    ['avif.avif', 'image/avif', 600, 'av01'],
    ['avif-irot-90.avif', 'image/avif', 600, 'av01'],
  ])('%s: %d, codec %s', (name, type, pixels, codec) => {
    expect(decodingOf(fixture(name), type)).toEqual({ pixels, codec });
  });

  it.each([
    [8, 'hevc', 'image/heic', 'hvc1'],
    [12, 'hevc', 'image/heic', 'hvc1'],
    [8, 'av1', 'image/avif', 'av01'],
  ] as const)(
    'a %d x %d grid of 2048 px tiles (%s) cropped to 64 x 64: displays 64 x 64, decodes them all',
    (cells, codec, type, itemType) => {
      const bomb = heifGridBomb(bombTile(codec), { cells, disguise: 'clap' });
      expect(header(bomb, type)).toMatchObject({ width: 64, height: 64 });
      expect(decodingOf(bomb, type)).toEqual({ pixels: cells * cells * 2048 * 2048, codec: itemType });
    },
  );

  it('refuses an item with two ispe, at the door and before decoding', () => {
    const bomb = heifGridBomb(bombTile('hevc'), { cells: 8, disguise: 'second-ispe' });
    expect(() => header(bomb, 'image/heic')).toThrow(/item 1 declares 2 image sizes \(ispe\)/);
    expect(malformed(() => decodingOf(bomb, 'image/heic'))).toBe('item 1 declares 2 image sizes (ispe)');
  });

  it('refuses a grid whose description names another size than its ispe', () => {
    const bomb = heifGridBomb(bombTile('hevc'), { cells: 2, disguise: 'clap' });
    const description = bomb.indexOf(Buffer.from([0, 1, 1, 1, 0, 0, 0x10, 0])); // version 0, 32-bit, 2 x 2, 4096
    expect(description).toBeGreaterThan(0);
    bomb.writeUInt32BE(65_536, description + 4);
    expect(malformed(() => decodingOf(bomb, 'image/heic'))).toBe(
      'grid 1 describes 65536 x 4096 pixels but declares 4096 x 4096 (ispe)',
    );
  });

  it('refuses a grid made of itself instead of recursing', () => {
    const bomb = heifGridBomb(bombTile('hevc'), { cells: 1, disguise: 'clap' });
    const dimg = bomb.indexOf(Buffer.from('dimg'));
    bomb.writeUInt16BE(1, dimg + 8); // the one tile reference now names the grid, item 1
    expect(malformed(() => decodingOf(bomb, 'image/heic'))).toBe('images derived more than 3 deep');
  });
});
