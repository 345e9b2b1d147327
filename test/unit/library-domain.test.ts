/** Image sniffing and the all-or-nothing error of the library domain. */
import { describe, expect, it } from 'vitest';
import { SNIFF_BYTES, failedItemsError, sniffImageType } from '../../functions/domain/library.ts';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../../functions/shared/errors.ts';
import { statusOf } from '../../functions/http/errors.ts';
import { gif, jpeg, png } from '../support/images.ts';
import { answered } from '../support/refusals.ts';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));
const ftyp = (brand: string) => bytes([0, 0, 0, 0x18], 'ftyp', brand, [0, 0, 0, 0], 'mif1');

describe('sniffImageType', () => {
  it.each([
    ['JPEG', jpeg(), 'image/jpeg'],
    ['PNG', png(), 'image/png'],
    ['GIF89a', gif(), 'image/gif'],
    ['GIF87a', bytes('GIF87a', [1, 0, 1, 0]), 'image/gif'],
    ['WebP', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
    ['TIFF little-endian', bytes([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]), 'image/tiff'],
    ['TIFF big-endian', bytes([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]), 'image/tiff'],
    ['HEIC', ftyp('heic'), 'image/heic'],
    ['HEIF', ftyp('mif1'), 'image/heif'],
    ['AVIF', ftyp('avif'), 'image/avif'],
    ['BMP', bytes('BM', [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0]), 'image/bmp'],
  ])('knows %s', (_name, head, type) => {
    expect(sniffImageType(head.subarray(0, SNIFF_BYTES))).toBe(type);
  });

  it.each([
    ['empty', bytes()],
    ['text', bytes('hello, world, this is text')],
    ['PDF', bytes('%PDF-1.7\n')],
    ['RIFF that is not WebP (WAV)', bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt ')],
    ['MP4 video', ftyp('isom')],
    ['a truncated PNG signature', bytes([0x89, 0x50, 0x4e, 0x47])],
    ['ZIP', bytes('PK', [3, 4, 20, 0])],
  ])('refuses %s', (_name, head) => {
    expect(sniffImageType(head)).toBeUndefined();
  });
});

describe('failedItemsError', () => {
  it('keeps the status and code of a lone failure of a single-item request', () => {
    const error = failedItemsError([{ index: 0, error: unsupportedMediaType('not an image') }], 1);
    expect(answered(error)).toMatchObject({ status: 415, code: 'UnsupportedMediaType', message: 'not an image' });
    expect(error.details).toEqual({ Failures: [{ Index: 0, Code: 'UnsupportedMediaType', Reason: 'not an image' }] });
  });

  it('lists every failure in index order; a shared status stays, mixed ones are 400', () => {
    const same = failedItemsError(
      [
        { index: 3, error: unsupportedMediaType('b') },
        { index: 1, error: unsupportedMediaType('a') },
      ],
      4,
    );
    expect(statusOf(same)).toBe(415);
    expect(same.code).toBe('UnsupportedMediaType');
    expect(((same.details?.Failures ?? []) as { Index: number }[]).map((failure) => failure.Index)).toEqual([1, 3]);
    expect(same.message).toContain('2 of 4 images');

    const mixed = failedItemsError(
      [
        { index: 0, error: payloadTooLarge('big') },
        { index: 2, error: badRequest('FetchFailed', 'refused') },
      ],
      3,
    );
    expect(answered(mixed)).toMatchObject({ status: 400, code: 'ItemsRejected' });
  });
});
