/**
 * Bounds-checked reads over the leading bytes of an image seen so far. Every format parser reads through a
 * ByteView and is simply run again when more bytes arrive: a read past the bytes held throws NeedMoreBytes
 * (naming how many are needed), a read past the end of a complete file or of an embedded block throws
 * MalformedHeader. Parsers never see an index error, a NaN or a partial value.
 */

/** The parser needs the first `needed` bytes of the file before it can answer. */
export class NeedMoreBytes extends Error {
  readonly needed: number;
  constructor(needed: number) {
    super(`need ${needed} bytes`);
    this.needed = needed;
  }
}

/** The bytes are no image header of the expected format (or a block inside it is cut short). */
export class MalformedHeader extends Error {}

export class ByteView {
  readonly bytes: Uint8Array;
  readonly end: number;
  readonly final: boolean;
  readonly littleEndian: boolean;

  /**
   * @param bytes the file's leading bytes as held
   * @param end offset past the last readable byte (the bytes held, or the end of an embedded block)
   * @param final true when no byte beyond `end` will ever come (end of file, or a block's own end)
   * @param littleEndian byte order of multi-byte reads
   */
  constructor(bytes: Uint8Array, end: number, final: boolean, littleEndian = false) {
    this.bytes = bytes;
    this.end = end;
    this.final = final;
    this.littleEndian = littleEndian;
  }

  /** A view of bytes[start, end) as one complete block, e.g. an EXIF segment whose offsets stay relative to the file. */
  block(end: number, littleEndian = this.littleEndian): ByteView {
    this.need(end);
    return new ByteView(this.bytes, end, true, littleEndian);
  }

  withOrder(littleEndian: boolean): ByteView {
    return new ByteView(this.bytes, this.end, this.final, littleEndian);
  }

  /** Throws unless bytes [0, offset) are readable. */
  need(offset: number): void {
    if (!Number.isSafeInteger(offset) || offset < 0) throw new MalformedHeader(`offset ${offset} out of range`);
    if (offset <= this.end) return;
    if (this.final) throw new MalformedHeader('header cut short');
    throw new NeedMoreBytes(offset);
  }

  u8(at: number): number {
    this.need(at + 1);
    return this.bytes[at] as number;
  }

  u16(at: number): number {
    this.need(at + 2);
    const [a, b] = [this.bytes[at] as number, this.bytes[at + 1] as number];
    return this.littleEndian ? a | (b << 8) : (a << 8) | b;
  }

  u24(at: number): number {
    this.need(at + 3);
    const [a, b, c] = [this.bytes[at] as number, this.bytes[at + 1] as number, this.bytes[at + 2] as number];
    return this.littleEndian ? a | (b << 8) | (c << 16) : (a << 16) | (b << 8) | c;
  }

  u32(at: number): number {
    const [high, low] = this.littleEndian ? [this.u16(at + 2), this.u16(at)] : [this.u16(at), this.u16(at + 2)];
    return high * 0x10000 + low;
  }

  i32(at: number): number {
    return this.u32(at) | 0;
  }

  ascii(at: number, length: number): string {
    this.need(at + length);
    return String.fromCharCode(...this.bytes.subarray(at, at + length));
  }
}

/** Inches per metre and per centimetre, for converting declared densities to dots per inch. */
export const METRES_PER_INCH = 0.0254;
export const CENTIMETRES_PER_INCH = 2.54;

/** A declared density as dots per inch, rounded to 2 decimals (300 dpi stored as 11811 px/m reads 300); null unless positive and finite. */
export function toDpi(perUnit: number, unitsPerInch: number): number | null {
  const dpi = perUnit * unitsPerInch;
  return Number.isFinite(dpi) && dpi > 0 ? Math.round(dpi * 100) / 100 : null;
}
