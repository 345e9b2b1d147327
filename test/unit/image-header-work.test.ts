/**
 * The header reader's work is linear in the bytes read, whatever chunks they come in. Work is counted as
 * the bytes its parsers examine (every read goes through HeldBytes#byte), never as time: a JPEG of 4-byte
 * COM segments fed a byte at a time made a reader that re-parsed from byte 0 on every chunk examine
 * about (segments²)/2 × 5 bytes; the count here fails as soon as it passes the linear bound.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ImageHeaderReader } from '../../functions/library/image-header/index.ts';
import { HeldBytes } from '../../functions/library/image-header/bytes.ts';
import { jpeg, jpegOfTinySegments } from '../support/images.ts';

afterEach(() => vi.restoreAllMocks());

/** Feeds `file` in chunks of `size`; the bytes examined, throwing the moment they pass `bound`. */
function examinedReading(file: Buffer, size: number, bound: number) {
  vi.restoreAllMocks();
  let examined = 0;
  const byte = HeldBytes.prototype.byte;
  vi.spyOn(HeldBytes.prototype, 'byte').mockImplementation(function (this: HeldBytes, at: number) {
    if (++examined > bound) throw new Error(`the reader examined more than ${bound} bytes`);
    return byte.call(this, at);
  });
  const reader = new ImageHeaderReader('image/jpeg');
  let metadata;
  for (let at = 0; metadata === undefined && at < file.length; at += size)
    metadata = reader.add(file.subarray(at, at + size));
  metadata ??= reader.end();
  return { examined, metadata };
}

/** Linear: a fixed allowance and a few reads per byte of the file. */
const linearBound = (length: number) => 128 * 1024 + 8 * length;

describe('header reading work', () => {
  const hostile = jpegOfTinySegments(200 * 1024);

  it.each([1, 16, 64])(
    'reads a 200 KB JPEG of 4-byte segments fed %i bytes at a time examining a linear number of bytes',
    (size) => {
      const { examined, metadata } = examinedReading(hostile, size, linearBound(hostile.length));
      expect(metadata).toEqual({ width: 1, height: 1, orientation: 1, dpiX: null, dpiY: null });
      expect(examined).toBeLessThanOrEqual(linearBound(hostile.length));
    },
  );

  it('examines about as much for the hostile file a byte at a time as for it in one chunk, per byte', () => {
    const whole = examinedReading(hostile, hostile.length, linearBound(hostile.length)).examined;
    const trickled = examinedReading(hostile, 1, linearBound(hostile.length)).examined;
    // One run over the whole file reads each segment once; trickled, the runs together read a few times that.
    expect(trickled / whole).toBeLessThan(8);
  });

  it('still reads a plain header the moment it is complete, a byte at a time', () => {
    const file = jpeg('plain');
    const reader = new ImageHeaderReader('image/jpeg');
    // The shortest prefix that holds the header, found by reading prefixes whole.
    let shortest = 1;
    while (new ImageHeaderReader('image/jpeg').add(file.subarray(0, shortest)) === undefined) shortest++;
    let fed = 0;
    while (reader.add(file.subarray(fed, fed + 1)) === undefined) fed++;
    expect(fed + 1).toBe(shortest);
  });
});
