/**
 * Tiny but valid images built byte by byte, so tests push real image files without fixtures:
 * a PNG (zlib-compressed scanlines, CRC32 chunks), a baseline JPEG (one 8x8 block, one-code Huffman
 * tables) and a GIF. Each decodes in ordinary viewers.
 */
import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** An RGB PNG of `width` x `height` pixels; `seed` varies the pixels (and so the MD5). */
export function png(width = 2, height = 2, seed = 0): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter method, no interlace
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(0); // filter type None
    for (let x = 0; x < width * 3; x++) rows.push((x * 31 + y * 17 + seed * 7) & 0xff);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.from(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const segment = (marker: number, payload: number[]): Buffer =>
  Buffer.from([0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload]);

/**
 * A 1x1 grey baseline JPEG. The Huffman tables hold a single 1-bit code each (DC difference 0, AC end of
 * block), so the scan is the bits `00` padded with ones. `comment` goes into a COM segment to vary the MD5.
 */
export function jpeg(comment = ''): Buffer {
  const ones = Array.from({ length: 64 }, () => 1);
  const oneCode = (tableClass: number, symbol: number) => [
    (tableClass << 4) | 0,
    1,
    ...Array.from({ length: 15 }, () => 0),
    symbol,
  ];
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]), // SOI
    segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]), // APP0 JFIF 1.1
    ...(comment ? [segment(0xfe, [...Buffer.from(comment, 'latin1')])] : []),
    segment(0xdb, [0x00, ...ones]), // DQT table 0, all ones
    segment(0xc0, [8, 0, 1, 0, 1, 1, 1, 0x11, 0]), // SOF0: 8-bit, 1x1, one component, 1x1 sampling, table 0
    segment(0xc4, oneCode(0, 0x00)), // DHT DC 0: category 0
    segment(0xc4, oneCode(1, 0x00)), // DHT AC 0: end of block
    segment(0xda, [1, 1, 0x00, 0, 63, 0]), // SOS: one component, tables 0/0, full spectral range
    Buffer.from([0x3f]), // DC "0", EOB "0", padded with ones
    Buffer.from([0xff, 0xd9]), // EOI
  ]);
}

/**
 * The 1x1 JPEG with empty COM segments (4 bytes each) before its frame header, about `bytes` long: the
 * header a hostile server sends to make a reader that re-parses from byte 0 on every chunk quadratic.
 */
export function jpegOfTinySegments(bytes: number): Buffer {
  const base = jpeg();
  const count = Math.max(0, Math.floor((bytes - base.length) / 4));
  const emptyComment = Buffer.from([0xff, 0xfe, 0x00, 0x02]);
  const app0End = 2 + 18; // SOI, then the 18-byte JFIF APP0
  return Buffer.concat([base.subarray(0, app0End), Buffer.alloc(count * 4).fill(emptyComment), base.subarray(app0End)]);
}

/** A 1x1 GIF89a. */
export function gif(): Buffer {
  return Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
}

/** A PNG padded to `bytes` bytes with an ancillary chunk (viewers skip it), for size limits. */
export function pngOfSize(bytes: number): Buffer {
  const base = png();
  const filler = bytes - base.length - 12;
  if (filler < 0) throw new RangeError(`a PNG needs at least ${base.length + 12} bytes`);
  const iend = base.subarray(base.length - 12);
  return Buffer.concat([base.subarray(0, base.length - 12), pngChunk('fiLl', Buffer.alloc(filler, 0x5a)), iend]);
}

/**
 * A real photo of `bytes` bytes that any viewer decodes: the 30 x 20 baseline JPEG fixture with COM
 * segments (which decoders skip) of seeded pseudo-random bytes after its frame header, so the header
 * reader finds the size at once and each `seed` gives other bytes (and other part ETags). No byte is `<`,
 * so no stretch of it reads as markup.
 */
export function photoOfSize(bytes: number, seed = 1): Buffer {
  const base = readFileSync(new URL('../fixtures/images/jpeg-baseline-jfif-72dpi.jpg', import.meta.url));
  // Segments from after SOI: marker, two length bytes; the padding goes after the first SOFn.
  let at = 2;
  while (!(base[at + 1]! >= 0xc0 && base[at + 1]! <= 0xc3)) at += 2 + base.readUInt16BE(at + 2);
  at += 2 + base.readUInt16BE(at + 2);
  let state = seed >>> 0 || 1;
  const fill = (payload: Buffer) => {
    for (let i = 0; i < payload.length; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      payload[i] = (state & 0xff) === 0x3c ? 0x3d : state & 0xff;
    }
    return payload;
  };
  const segments: Buffer[] = [];
  let missing = bytes - base.length;
  while (missing > 0) {
    const payload = Math.min(65_533, missing - 4);
    if (payload < 0) throw new RangeError(`a padded photo cannot be exactly ${bytes} bytes`);
    segments.push(Buffer.from([0xff, 0xfe, (payload + 2) >> 8, (payload + 2) & 0xff]), fill(Buffer.alloc(payload)));
    missing -= payload + 4;
  }
  return Buffer.concat([base.subarray(0, at), ...segments, base.subarray(at)]);
}

/**
 * A decompression bomb: a 1-bit greyscale PNG of `width` x `height` white pixels whose rows deflate to
 * almost nothing (20000 x 20000, 400 megapixels, is about 50 KB). The header is honest; the pixels would
 * take gigabytes once decoded.
 */
export function pngBomb(width = 20_000, height = 20_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([1, 0, 0, 0, 0], 8); // 1-bit greyscale, deflate, no filter method, no interlace
  const rowBytes = 1 + Math.ceil(width / 8);
  const rows = Buffer.alloc(rowBytes * height, 0xff);
  for (let y = 0; y < height; y++) rows[y * rowBytes] = 0; // filter type None
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(rows, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
