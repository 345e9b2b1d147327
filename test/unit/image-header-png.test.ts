/**
 * A PNG whose ancillary chunks before the image data pass the reader's bound (a large ICC profile or XMP
 * text) is still readable: IHDR gave its size, and what was found before the bound is kept.
 */
import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { IMAGE_HEADER_MAX_BYTES, ImageHeaderReader } from '../../functions/library/image-header/index.ts';
import { thrownBy } from '../support/refusals.ts';

const fixture = readFileSync(new URL('../fixtures/images/png-phys-300dpi.png', import.meta.url));

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** The fixture with a text chunk of `size` bytes inserted right after IHDR (8 + 25 bytes) or before IDAT. */
function withTextChunk(size: number, where: 'after-ihdr' | 'before-idat'): Buffer {
  const text = chunk('tEXt', Buffer.concat([Buffer.from('Comment\0'), Buffer.alloc(size, 0x41)]));
  const at = where === 'after-ihdr' ? 33 : fixture.indexOf('IDAT') - 4;
  return Buffer.concat([fixture.subarray(0, at), text, fixture.subarray(at)]);
}

function read(bytes: Buffer, chunkSize = 64 * 1024) {
  const reader = new ImageHeaderReader('image/png');
  for (let at = 0; at < bytes.length; at += chunkSize) {
    const found = reader.add(bytes.subarray(at, at + chunkSize));
    if (found) return found;
  }
  return reader.end();
}

describe('PNG with large chunks before the image data', () => {
  it('answers the size from IHDR when the chunks before pHYs pass the bound (no density then)', () => {
    expect(read(withTextChunk(IMAGE_HEADER_MAX_BYTES + 1000, 'after-ihdr'))).toEqual({
      width: 30,
      height: 20,
      orientation: 1,
      dpiX: null,
      dpiY: null,
    });
  });

  it('keeps the density of a pHYs found before a large chunk', () => {
    expect(read(withTextChunk(IMAGE_HEADER_MAX_BYTES + 1000, 'before-idat'))).toEqual({
      width: 30,
      height: 20,
      orientation: 1,
      dpiX: 300,
      dpiY: 300,
    });
  });

  it('still reads a large chunk within the bound completely', () => {
    expect(read(withTextChunk(512 * 1024, 'after-ihdr'))).toEqual({
      width: 30,
      height: 20,
      orientation: 1,
      dpiX: 300,
      dpiY: 300,
    });
  });

  it('still refuses a PNG that ends inside its chunks (a truncated header)', () => {
    const cut = withTextChunk(2000, 'after-ihdr').subarray(0, 1000);
    expect(thrownBy(() => read(cut))).toMatchObject({ status: 415, code: 'UnreadableImage' });
  });
});
