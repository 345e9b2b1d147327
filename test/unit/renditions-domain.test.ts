/** The renditions' rules that need no image library: sizes, orientation, the pixel limit, object keys. */
import { describe, expect, it } from 'vitest';
import {
  mayBeHevc,
  orientationToApply,
  byteLimitReason,
  pixelLimitReason,
  RENDITION_SPECS,
  renditionObjectKey,
  renditionObjectKeys,
} from '../../functions/domain/renditions.ts';

describe('renditions rules', () => {
  it('makes a Thumbnail of long side 320 and a Preview of long side 1600', () => {
    expect(RENDITION_SPECS).toEqual([
      { name: 'thumbnail', longSide: 320 },
      { name: 'preview', longSide: 1600 },
    ]);
  });

  it('applies EXIF orientation except to HEIF and AVIF, whose decoder turns them by irot and imir', () => {
    expect(orientationToApply('image/jpeg', 6)).toBe(6);
    expect(orientationToApply('image/tiff', 8)).toBe(8);
    for (const type of ['image/heic', 'image/heif', 'image/avif', 'image/heic-sequence'])
      expect(orientationToApply(type, 6)).toBe(1);
    expect(orientationToApply('image/jpeg', 0)).toBe(1);
    expect(orientationToApply('image/jpeg', 9)).toBe(1);
  });

  it('sends HEIC and HEIF to the HEVC decoder first, AVIF straight to libvips', () => {
    expect(mayBeHevc('image/heic')).toBe(true);
    expect(mayBeHevc('image/heif')).toBe(true);
    expect(mayBeHevc('image/avif')).toBe(false);
    expect(mayBeHevc('image/jpeg')).toBe(false);
  });

  it('refuses more pixels than the limit, with a reason naming both', () => {
    const shown = (width: number, height: number) => [{ width, height }, width * height] as const;
    expect(pixelLimitReason(...shown(10_000, 10_000), 100_000_000)).toBeUndefined();
    expect(pixelLimitReason(...shown(20_000, 20_000), 100_000_000)).toBe(
      'The image has 20000 x 20000 pixels (400 megapixels), more than the 100 megapixels renditions are made of.',
    );
    expect(pixelLimitReason(...shown(10_001, 10_000), 100_000_000)).toMatch(
      /\(100\.01 megapixels\), more than the 100 megapixels/,
    );
  });

  it('holds the limit for the pixels decoded, whatever the image shows', () => {
    expect(pixelLimitReason({ width: 64, height: 64 }, 268_435_456, 100_000_000)).toBe(
      'The image shows 64 x 64 pixels but decodes 268.44 megapixels, more than the 100 megapixels renditions are made of.',
    );
  });

  it('refuses originals larger than the byte limit, naming both', () => {
    expect(byteLimitReason(512 * 2 ** 20, 512 * 2 ** 20)).toBeUndefined();
    expect(byteLimitReason(2 ** 30, 512 * 2 ** 20)).toBe(
      'The original is 1024 MiB, more than the 512 MiB renditions are made from.',
    );
  });

  it('keeps the renditions beside the original', () => {
    const original = 'library/0123/abcd';
    expect(renditionObjectKey(original, 'preview')).toBe('library/0123/abcd.preview.webp');
    expect(renditionObjectKeys(original)).toEqual([
      'library/0123/abcd.thumbnail.webp',
      'library/0123/abcd.preview.webp',
    ]);
  });
});
