/**
 * The image header reader against real files made by test/fixtures/images/make-fixtures.sh (expected values as
 * exiftool and ImageMagick's identify report them), fed whole, in chunks and cut short at every byte; hand-built
 * headers for the cases the tools here cannot write (HEIF irot/imir/clap, WebP EXIF before the image data).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sniffImageType } from '../../functions/domain/library.ts';
import {
  IMAGE_HEADER_MAX_BYTES,
  ImageHeaderReader,
  type ImageMetadata,
} from '../../functions/library/image-header/index.ts';
import { DomainError } from '../../functions/shared/errors.ts';
import { statusOf } from '../../functions/http/errors.ts';

const FIXTURES = new URL('../fixtures/images/', import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));
const typeOf = (bytes: Uint8Array) => sniffImageType(bytes.subarray(0, 16)) as string;

/** Reads `bytes` fed in chunks of `size` bytes (the whole file when omitted), as the upload stream does. */
function read(bytes: Uint8Array, size = bytes.length, type = typeOf(bytes)): ImageMetadata {
  const reader = new ImageHeaderReader(type);
  for (let at = 0; at < bytes.length; at += Math.max(size, 1)) {
    const found = reader.add(bytes.subarray(at, at + size));
    if (found) return found;
  }
  return reader.end();
}

/** The error `run` throws (failing the test when it throws none). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

const isUnreadable = (error: unknown) =>
  error instanceof DomainError && statusOf(error) === 415 && error.code === 'UnreadableImage';

const meta = (
  width: number,
  height: number,
  orientation = 1,
  dpi: number | null = null,
  dpiY = dpi,
): ImageMetadata => ({ width, height, orientation, dpiX: dpi, dpiY });

/** Every fixture and what exiftool / identify say of it (displayed size: orientations 5-8 swap 30 x 20). */
const EXPECTED: Record<string, ImageMetadata> = {
  'jpeg-baseline-jfif-72dpi.jpg': meta(30, 20, 1, 72),
  'jpeg-jfif-dpcm.jpg': meta(30, 20, 1, 299.72), // JFIF 118 dots/cm
  'jpeg-progressive.jpg': meta(30, 20), // SOF2; JFIF units 0 is an aspect ratio, no density
  'jpeg-exif-orientation-6.jpg': meta(20, 30, 6), // EXIF ResolutionUnit 1 (none), JFIF units 0
  'jpeg-exif-orientation-8.jpg': meta(20, 30, 8),
  'jpeg-jfif-then-exif.jpg': meta(30, 20, 3, 300), // JFIF 72 dpi, EXIF 300 dpi: EXIF wins (as identify reports)
  'jpeg-exif-then-jfif.jpg': meta(30, 20, 3, 300),
  'jpeg-exif-then-icc-60k.jpg': meta(20, 30, 6, 240), // a 61,456-byte APP2 after EXIF, before SOF0
  'jpeg-exif-dpcm.jpg': meta(30, 20, 1, 300), // EXIF 118.11 per cm
  'jpeg-arithmetic-sof9.jpg': meta(30, 20),
  'jpeg-cmyk-adobe.jpg': meta(30, 20, 1, 300),
  'camera-canon-eos-like.jpg': meta(30, 20, 1, 72),
  'camera-iphone-like.jpg': meta(20, 30, 6, 72),
  'camera-nikon-like.jpg': meta(20, 30, 8, 300),
  'png-phys-300dpi.png': meta(30, 20, 1, 300), // 11811 px/m
  'png-no-phys.png': meta(30, 20),
  'png-exif-orientation-6.png': meta(20, 30, 6), // eXIf before IDAT; PNG density comes from pHYs only
  'gif.gif': meta(30, 20),
  'bmp-300dpi.bmp': meta(30, 20, 1, 300), // 11811 px/m
  'tiff-le-300dpi.tif': meta(30, 20, 1, 300),
  'tiff-be-dpcm.tif': meta(30, 20, 1, 101.6), // 40 per cm
  'tiff-be-orientation-6.tif': meta(20, 30, 6, 150),
  'webp-lossy-vp8.webp': meta(30, 20),
  'webp-lossless-vp8l.webp': meta(30, 20),
  'webp-extended-vp8x-alpha.webp': meta(30, 20),
  'webp-extended-vp8x-exif.webp': meta(30, 20), // EXIF (orientation 6) after the image data is not read
  'heic.heic': meta(30, 20), // a grid primary item over a 64 x 64 tile
  'heic-exif-orientation-6-no-irot.heic': meta(30, 20), // HEIF ignores EXIF orientation
  'avif.avif': meta(30, 20),
  'avif-irot-90.avif': meta(20, 30, 8), // irot 1: a quarter turn anti-clockwise
};
const NAMES = Object.keys(EXPECTED);

describe('ImageHeaderReader on the fixtures', () => {
  it.each(NAMES)('%s', (name) => {
    expect(read(fixture(name))).toEqual(EXPECTED[name]);
  });

  it.each(NAMES)('%s in chunks of 1, 7 and 4096 bytes', (name) => {
    const bytes = fixture(name);
    for (const size of [1, 7, 4096]) expect(read(bytes, size)).toEqual(EXPECTED[name]);
  });

  /**
   * Every length shorter than the shortest prefix that reads: all of them for the small files; for the 60 KiB
   * APP2 file the first and last 4 KiB and every 61st inside the segment's opaque payload (each length copies
   * the prefix into a fresh reader, so all 62,000 would cost seconds on a loaded machine and test nothing new).
   */
  const truncations = (complete: number) =>
    Array.from({ length: complete }, (_, length) => length).filter(
      (length) => complete <= 8192 || length < 4096 || length >= complete - 4096 || length % 61 === 0,
    );

  it.each(NAMES)('%s cut short at every byte of its header asks for more, then ends with 415', (name) => {
    const bytes = fixture(name);
    const type = typeOf(bytes);
    const reader = new ImageHeaderReader(type);
    let complete = 0; // the shortest prefix that reads
    while (reader.add(bytes.subarray(complete, complete + 1)) === undefined) complete++;
    complete++;
    expect(new ImageHeaderReader(type).add(bytes.subarray(0, complete))).toEqual(EXPECTED[name]);
    for (const length of truncations(complete)) {
      const cut = new ImageHeaderReader(type);
      expect(cut.add(bytes.subarray(0, length))).toBeUndefined();
      expect(isUnreadable(thrown(() => cut.end()))).toBe(true);
    }
  });

  it('refuses the JPEG cut before its frame header with 415', () => {
    const error = thrown(() => read(fixture('jpeg-truncated-before-sof.jpg')));
    expect(isUnreadable(error)).toBe(true);
    expect((error as DomainError).message).toMatch(/could not be read/);
  });

  it('reads the 60 KiB APP2 case with nothing past the frame header', () => {
    const bytes = fixture('jpeg-exif-then-icc-60k.jpg');
    const reader = new ImageHeaderReader('image/jpeg');
    let fed = 0;
    while (!reader.add(bytes.subarray(fed, fed + 1000))) fed += 1000;
    expect(fed + 1000).toBeGreaterThan(61_456);
    expect(reader.heldBytes).toBe(0); // released once read
    expect(reader.add(new Uint8Array(10))).toEqual(EXPECTED['jpeg-exif-then-icc-60k.jpg']);
    expect(reader.heldBytes).toBe(0);
  });
});

// Hand-built headers ---------------------------------------------------------------------------------

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const u16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
const u32 = (value: number) => Buffer.from([value >>> 24, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff]);
const u32le = (value: number) => Buffer.from(u32(value).reverse());
const box = (type: string, ...body: Uint8Array[]) =>
  Buffer.concat([u32(8 + body.reduce((sum, part) => sum + part.length, 0)), latin1(type), ...body]);
const fullBox = (type: string, version: number, flags: number, ...body: Uint8Array[]) =>
  box(type, Buffer.from([version, flags >> 16, (flags >> 8) & 0xff, flags & 0xff]), ...body);

/** A HEIF whose primary item 2 has the properties `associated` (1-based into `properties`); item 1 is a 64 x 64 tile. */
function heif(
  properties: Buffer[],
  associated: number[],
  options: { ipmaVersion?: number; wide?: boolean; before?: Buffer[] } = {},
): Buffer {
  const { ipmaVersion = 0, wide = false, before = [] } = options;
  const id = (item: number) => (ipmaVersion < 1 ? u16(item) : u32(item));
  const index = (n: number) => (wide ? u16(n) : Buffer.from([n]));
  const tile = properties.length + 1;
  const ipma = fullBox(
    'ipma',
    ipmaVersion,
    wide ? 1 : 0,
    u32(2),
    id(1),
    Buffer.from([1]),
    index(tile),
    id(2),
    Buffer.from([associated.length]),
    ...associated.map(index),
  );
  const ipco = box('ipco', ...properties, fullBox('ispe', 0, 0, u32(64), u32(64)));
  const meta = fullBox(
    'meta',
    0,
    0,
    fullBox('hdlr', 0, 0, u32(0), latin1('pict'), Buffer.alloc(13)),
    fullBox('pitm', 0, 0, u16(2)),
    box('iprp', ipco, ipma),
  );
  return Buffer.concat([
    box('ftyp', latin1('heic'), u32(0), latin1('mif1heic')),
    ...before,
    meta,
    box('mdat', Buffer.alloc(16)),
  ]);
}
const ispe = (width: number, height: number) => fullBox('ispe', 0, 0, u32(width), u32(height));
const irot = (quarterTurns: number) => box('irot', Buffer.from([quarterTurns]));
const imir = (axis: number) => box('imir', Buffer.from([axis]));
const clap = (width: number, height: number) =>
  box('clap', u32(width), u32(1), u32(height), u32(1), u32(0), u32(1), u32(0), u32(1));

describe('HEIF transforms of the primary item', () => {
  it.each([
    ['no transform', [ispe(30, 20)], [1], meta(30, 20)],
    ['irot 1 (90 anti-clockwise) = orientation 8', [ispe(30, 20), irot(1)], [1, 2], meta(20, 30, 8)],
    ['irot 2 = orientation 3', [ispe(30, 20), irot(2)], [1, 2], meta(30, 20, 3)],
    ['irot 3 (90 clockwise) = orientation 6', [ispe(30, 20), irot(3)], [1, 2], meta(20, 30, 6)],
    ['imir axis 0 (left-right) = orientation 2', [ispe(30, 20), imir(0)], [1, 2], meta(30, 20, 2)],
    ['imir axis 1 (top-bottom) = orientation 4', [ispe(30, 20), imir(1)], [1, 2], meta(30, 20, 4)],
    ['irot 1 then imir 0 = orientation 7', [ispe(30, 20), irot(1), imir(0)], [1, 2, 3], meta(20, 30, 7)],
    ['irot 1 then imir 1 = orientation 5', [ispe(30, 20), irot(1), imir(1)], [1, 2, 3], meta(20, 30, 5)],
    ['clap crops, then irot 3 turns', [ispe(32, 22), clap(30, 20), irot(3)], [1, 2, 3], meta(20, 30, 6)],
    ['properties listed in another order', [irot(3), ispe(30, 20)], [2, 1], meta(20, 30, 6)],
  ])('%s', (_name, properties, associated, expected) => {
    expect(read(heif(properties, associated), 1, 'image/heic')).toEqual(expected);
  });

  it('reads ipma version 1 with 15-bit property indexes, and a free box before meta', () => {
    const file = heif([ispe(30, 20), irot(1)], [1, 0x8002], {
      ipmaVersion: 1,
      wide: true,
      before: [box('free', Buffer.alloc(100))],
    });
    expect(read(file, 7, 'image/avif')).toEqual(meta(20, 30, 8));
  });

  it('reads a box with a 64-bit size', () => {
    const file = heif([ispe(30, 20)], [1]);
    const free = Buffer.concat([u32(1), latin1('free'), u32(0), u32(24), Buffer.alloc(8)]);
    const withLarge = Buffer.concat([file.subarray(0, 24), free, file.subarray(24)]);
    expect(read(withLarge, 3, 'image/heif')).toEqual(meta(30, 20));
  });

  it('refuses boxes whose size is shorter than their header (64-bit or not) instead of looping on them', () => {
    const ftyp = heif([ispe(30, 20)], [1]).subarray(0, 24);
    for (const bad of [0, 8]
      .map((large) => Buffer.concat([u32(1), latin1('free'), u32(0), u32(large)]))
      .concat(Buffer.concat([u32(4), latin1('free')]))) {
      expect(isUnreadable(thrown(() => read(Buffer.concat([ftyp, bad, Buffer.alloc(64)]), 5, 'image/heic')))).toBe(
        true,
      );
    }
  });

  it('refuses a primary item without ispe, or with a zero size', () => {
    expect(isUnreadable(thrown(() => read(heif([irot(1)], [1]), 4096, 'image/heic')))).toBe(true);
    expect(isUnreadable(thrown(() => read(heif([ispe(0, 20)], [1]), 4096, 'image/heic')))).toBe(true);
  });
});

describe('other hand-built headers', () => {
  const exif = (orientation: number) =>
    Buffer.concat([
      latin1('MM'),
      u16(42),
      u32(8),
      u16(1),
      u16(0x0112),
      u16(3),
      u32(1),
      u16(orientation),
      u16(0),
      u32(0),
    ]);
  const vp8 = () =>
    Buffer.concat([latin1('VP8 '), u32le(10), Buffer.from([0x50, 0x01, 0x00, 0x9d, 0x01, 0x2a, 30, 0, 20, 0])]);
  const webp = (...chunks: Buffer[]) => {
    const body = Buffer.concat([latin1('WEBP'), ...chunks]);
    return Buffer.concat([latin1('RIFF'), u32le(body.length), body]);
  };
  const vp8x = (flags: number) =>
    Buffer.concat([latin1('VP8X'), u32le(10), Buffer.from([flags, 0, 0, 0, 29, 0, 0, 19, 0, 0])]);

  it('WebP VP8X: an EXIF chunk before the image data sets the orientation (with or without the Exif prefix)', () => {
    const chunk = (data: Buffer) =>
      Buffer.concat([latin1('EXIF'), u32le(data.length), data, Buffer.alloc(data.length % 2)]);
    expect(read(webp(vp8x(0x08), chunk(exif(6)), vp8()), 1)).toEqual(meta(20, 30, 6));
    expect(read(webp(vp8x(0x08), chunk(Buffer.concat([latin1('Exif\0\0'), exif(8)])), vp8()), 1)).toEqual(
      meta(20, 30, 8),
    );
    expect(read(webp(vp8x(0), chunk(exif(6)), vp8()), 1)).toEqual(meta(30, 20)); // the flag says there is none
  });

  it('JPEG: fill bytes before a marker, SOF1, a broken EXIF block ignored', () => {
    const segment = (marker: number, body: Buffer) =>
      Buffer.concat([Buffer.from([0xff, marker]), u16(body.length + 2), body]);
    const sof1 = segment(0xc1, Buffer.from([8, 0, 20, 0, 30, 3]));
    const file = Buffer.concat([
      Buffer.from([0xff, 0xd8]),
      segment(0xe1, latin1('Exif\0\0XX garbage')),
      Buffer.from([0xff, 0xff, 0xff]),
      sof1.subarray(1),
    ]);
    expect(read(file, 1)).toEqual(meta(30, 20));
  });

  it('JPEG with a frame of height 0 (set later by DNL) is refused', () => {
    const file = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 0, 0, 30, 1, 1, 0x11, 0]);
    expect(isUnreadable(thrown(() => read(file)))).toBe(true);
  });

  it('BMP: the OS/2 core header, and a negative (top-down) height', () => {
    const core = Buffer.concat([latin1('BM'), Buffer.alloc(12), u32le(12), Buffer.from([30, 0, 20, 0, 1, 0, 24, 0])]);
    expect(read(core, 1)).toEqual(meta(30, 20));
    const info = Buffer.concat([
      latin1('BM'),
      Buffer.alloc(12),
      u32le(40),
      u32le(30),
      u32le(-20 >>> 0),
      Buffer.alloc(12),
      u32le(0),
      u32le(0),
      Buffer.alloc(8),
    ]);
    expect(read(info, 1)).toEqual(meta(30, 20));
  });

  it('GIF87a', () => {
    expect(read(Buffer.concat([latin1('GIF87a'), Buffer.from([30, 0, 20, 0, 0, 0, 0])]), 1)).toEqual(meta(30, 20));
  });

  it('a PNG of width 0 and a type without a reader are refused', () => {
    const png = fixture('png-no-phys.png');
    png.set([0, 0, 0, 0], 16);
    expect(isUnreadable(thrown(() => read(png)))).toBe(true);
    expect(isUnreadable(thrown(() => new ImageHeaderReader('image/x-unknown')))).toBe(true);
  });
});

describe('the bound', () => {
  /** A JPEG whose frame header follows `appBytes` bytes of APP15 segments. */
  function jpegAfter(appBytes: number): Buffer {
    const segments: Buffer[] = [Buffer.from([0xff, 0xd8])];
    for (let left = appBytes; left > 0;) {
      const length = Math.min(65_535, Math.max(left, 4) - 2);
      segments.push(Buffer.concat([Buffer.from([0xff, 0xef]), u16(length), Buffer.alloc(length - 2)]));
      left -= length + 2;
    }
    segments.push(Buffer.from([0xff, 0xc0, 0, 11, 8, 0, 20, 0, 30, 1, 1, 0x11, 0]), Buffer.alloc(200_000));
    return Buffer.concat(segments);
  }

  it('reads a header that ends within IMAGE_HEADER_MAX_BYTES, holding no more than that', () => {
    const file = jpegAfter(IMAGE_HEADER_MAX_BYTES - 100);
    const reader = new ImageHeaderReader('image/jpeg');
    let found: ImageMetadata | undefined;
    for (let at = 0; !found; at += 65_536) {
      found = reader.add(file.subarray(at, at + 65_536));
      expect(reader.heldBytes).toBeLessThanOrEqual(IMAGE_HEADER_MAX_BYTES);
    }
    expect(found).toEqual(meta(30, 20));
  });

  it('refuses with 415 once IMAGE_HEADER_MAX_BYTES have passed without a header, holding no more than that', () => {
    const file = jpegAfter(IMAGE_HEADER_MAX_BYTES + 100_000);
    const reader = new ImageHeaderReader('image/jpeg');
    let error: unknown;
    for (let at = 0; at < file.length && error === undefined; at += 10_000) {
      try {
        expect(reader.add(file.subarray(at, at + 10_000))).toBeUndefined();
      } catch (caught) {
        error = caught;
      }
      expect(reader.heldBytes).toBeLessThanOrEqual(IMAGE_HEADER_MAX_BYTES);
    }
    expect(isUnreadable(error)).toBe(true);
    expect((error as DomainError).message).toContain(String(IMAGE_HEADER_MAX_BYTES));
  });
});

describe('a header far into the file (TIFF IFD after the pixels, HEIF meta after mdat)', () => {
  /** A TIFF 30 x 20, orientation 6, whose IFD0 lies at `ifd` with its 300 dpi rationals at `values`. */
  function tiff(
    littleEndian: boolean,
    ifd: number,
    values = ifd + 2 + 6 * 12 + 4,
    length = Math.max(ifd, values) + 200,
  ): Buffer {
    const file = Buffer.alloc(length);
    const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
    file.write(littleEndian ? 'II' : 'MM', 'latin1');
    view.setUint16(2, 42, littleEndian);
    view.setUint32(4, ifd, littleEndian);
    view.setUint16(ifd, 6, littleEndian);
    const entries: [number, number, number][] = [
      [0x0100, 3, 30],
      [0x0101, 3, 20],
      [0x0112, 3, 6],
      [0x011a, 5, values],
      [0x011b, 5, values + 8],
      [0x0128, 3, 2],
    ];
    entries.forEach(([tag, type, value], i) => {
      const at = ifd + 2 + i * 12;
      view.setUint16(at, tag, littleEndian);
      view.setUint16(at + 2, type, littleEndian);
      view.setUint32(at + 4, 1, littleEndian);
      if (type === 3) view.setUint16(at + 8, value, littleEndian);
      else view.setUint32(at + 8, value, littleEndian);
    });
    for (const at of [values, values + 8]) {
      view.setUint32(at, 300, littleEndian);
      view.setUint32(at + 4, 1, littleEndian);
    }
    return file;
  }

  /** Feeds `file` in chunks of `size`, checking the bound after each; the metadata or the error thrown. */
  function feed(file: Uint8Array, type: string, size: number): unknown {
    const reader = new ImageHeaderReader(type);
    try {
      for (let at = 0; at < file.length; at += size) {
        const found = reader.add(file.subarray(at, at + size));
        expect(reader.heldBytes).toBeLessThanOrEqual(IMAGE_HEADER_MAX_BYTES);
        if (found) return found;
      }
      return reader.end();
    } catch (error) {
      return error;
    }
  }

  it.each([true, false])(
    'reads a 3 MB TIFF whose IFD follows the pixels (little-endian %s), holding at most the bound',
    (littleEndian) => {
      const file = tiff(littleEndian, 3_000_000);
      for (const size of [65_536, 1_000_003]) expect(feed(file, 'image/tiff', size)).toEqual(meta(20, 30, 6, 300));
    },
  );

  it('reads the IFD even when it starts inside the head and reaches past the bound', () => {
    const file = tiff(true, IMAGE_HEADER_MAX_BYTES - 20);
    expect(feed(file, 'image/tiff', 100_000)).toEqual(meta(20, 30, 6, 300));
  });

  it('declares no density when the rationals lie before the IFD, in bytes that went by unheld', () => {
    const file = tiff(true, 3_000_000, 2_000_000);
    expect(feed(file, 'image/tiff', 65_536)).toEqual(meta(20, 30, 6));
  });

  it('refuses a TIFF whose IFD offset lies past its end', () => {
    const file = tiff(true, 3_000_000).subarray(0, 2_000_000);
    expect(isUnreadable(feed(file, 'image/tiff', 65_536))).toBe(true);
  });

  it('reads a HEIF whose meta box follows a 2 MB mdat', () => {
    const file = heif([ispe(30, 20), irot(3)], [1, 2]);
    const ftypEnd = 24;
    const metaEnd = file.length - 24; // the mdat heif() appends is 24 bytes
    const moved = Buffer.concat([
      file.subarray(0, ftypEnd),
      box('mdat', Buffer.alloc(2_000_000)),
      file.subarray(ftypEnd, metaEnd),
    ]);
    expect(feed(moved, 'image/heic', 65_536)).toEqual(meta(20, 30, 6));
  });
});

describe('property: any bytes, any chunking', () => {
  const arbitraryChunks = fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 20 });
  /** Feeds `bytes` in the given chunk sizes: metadata with positive sizes, or a 415, never anything else. */
  function outcome(bytes: Uint8Array, type: string, sizes: number[]): ImageMetadata | 'unreadable' {
    const reader = new ImageHeaderReader(type);
    try {
      for (let at = 0, i = 0; at < bytes.length; i++) {
        const size = sizes[i % sizes.length] as number;
        const found = reader.add(bytes.subarray(at, at + size));
        if (found) return found;
        at += size;
      }
      return reader.end();
    } catch (error) {
      if (isUnreadable(error)) return 'unreadable';
      throw error;
    }
  }

  it('a fixture with bytes changed at random reads or is refused with 415, the same whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        arbitraryChunks,
        (name, changes, sizes) => {
          const bytes = fixture(name);
          for (const [at, value] of changes) bytes[at % (bytes.length <= 8192 ? bytes.length : 2048)] = value; // the 60 KiB file: its head
          const result = outcome(bytes, typeOf(fixture(name)), sizes);
          expect(result).toEqual(outcome(bytes, typeOf(fixture(name)), [bytes.length]));
          if (result !== 'unreadable') {
            expect(result.width).toBeGreaterThan(0);
            expect(result.height).toBeGreaterThan(0);
            expect(result.orientation).toBeGreaterThanOrEqual(1);
            expect(result.orientation).toBeLessThanOrEqual(8);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('random ISO-BMFF boxes (sizes 0, 1, short, long) after ftyp read or are refused with 415, the same whatever the chunking', () => {
    const ftyp = fixture('heic.heic').subarray(0, 28);
    const randomBox = fc.record({
      size: fc.oneof(fc.constantFrom(0, 1, 4, 8, 16), fc.nat(80)),
      large: fc.nat(80),
      type: fc.constantFrom('free', 'meta', 'mdat', 'iprp', 'ipco', 'ipma', 'pitm', 'ispe', 'irot'),
      body: fc.uint8Array({ maxLength: 60 }),
    });
    fc.assert(
      fc.property(fc.array(randomBox, { maxLength: 6 }), arbitraryChunks, (boxes, sizes) => {
        const body = boxes.map(({ size, large, type, body }) =>
          Buffer.concat([
            u32(size),
            latin1(type),
            size === 1 ? Buffer.concat([u32(0), u32(large)]) : Buffer.alloc(0),
            body,
          ]),
        );
        const bytes = Buffer.concat([ftyp, ...body]);
        expect(outcome(bytes, 'image/heic', sizes)).toEqual(outcome(bytes, 'image/heic', [bytes.length]));
      }),
      { numRuns: 2000 },
    );
  });

  it('random bytes behind each signature read or are refused with 415, the same whatever the chunking', () => {
    const signatures = NAMES.map((name) => fixture(name).subarray(0, 16));
    fc.assert(
      fc.property(
        fc.constantFrom(...signatures),
        fc.uint8Array({ maxLength: 600 }),
        arbitraryChunks,
        (signature, tail, sizes) => {
          const bytes = Buffer.concat([signature, tail]);
          const type = typeOf(bytes);
          if (!type) return;
          expect(outcome(bytes, type, sizes)).toEqual(outcome(bytes, type, [bytes.length]));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
