/**
 * Bounds-checked reads over the bytes of an image held so far. Every format parser reads through a ByteView
 * and is simply run again when more bytes arrive: a read of bytes still to come throws NeedMoreBytes (naming
 * the range), a read past the end of a complete file or of an embedded block throws MalformedHeader, and a
 * read of bytes that went by without being held throws OutOfReach. Parsers never see an index error, a NaN
 * or a partial value.
 */
import type { ImageMetadata } from './metadata.ts';

/** The parser needs the file's bytes [from, to) before it can answer. */
export class NeedMoreBytes extends Error {
  readonly from: number;
  readonly to: number;
  /**
   * What the parser knows already and may answer when the bytes it asks for lie past the bound: set by a
   * format whose size comes first and whose later fields are optional (PNG).
   */
  known: ImageMetadata | undefined;
  constructor(from: number, to: number) {
    super(`need bytes ${from} to ${to}`);
    this.from = from;
    this.to = to;
  }
}

/** The bytes are no image header of the expected format (or a block inside it is cut short). */
export class MalformedHeader extends Error {}

/** The bytes asked for went by while the reader held a later part of the file. */
export class OutOfReach extends MalformedHeader {}

/**
 * The parts of a file held: its first bytes (the head) and, once a parser asked for bytes far ahead (a TIFF
 * IFD after the pixels), a window starting there. Without a window, the window is the empty range right after
 * the head, so head and window read as one contiguous prefix.
 */
export class HeldBytes {
  head: Uint8Array = new Uint8Array(0);
  headLength = 0;
  window: Uint8Array = new Uint8Array(0);
  windowStart = 0;
  windowLength = 0;
  /** True once the file has ended: nothing beyond the bytes held will come. */
  final = false;
  /** Bytes a parser read through byte() (every read goes through it): the reader's measure of its work. */
  examined = 0;

  get windowEnd(): number {
    return this.windowStart + this.windowLength;
  }

  /** Whether [from, to) is held, went by unheld, or is still to come. */
  status(from: number, to: number): 'held' | 'passed' | 'ahead' {
    const contiguous = this.windowStart <= this.headLength;
    if (to <= this.headLength || (to <= this.windowEnd && (from >= this.windowStart || contiguous))) return 'held';
    if (!contiguous && from < this.windowStart && to > this.headLength) return 'passed';
    return 'ahead';
  }

  byte(at: number): number {
    this.examined++;
    return (at < this.headLength ? this.head[at] : this.window[at - this.windowStart]) as number;
  }
}

export class ByteView {
  readonly held: HeldBytes;
  /** Offset past the last byte of the embedded block this view reads (no limit for the file itself). */
  readonly limit: number;
  readonly littleEndian: boolean;

  constructor(held: HeldBytes, limit = Number.MAX_SAFE_INTEGER, littleEndian = false) {
    this.held = held;
    this.limit = limit;
    this.littleEndian = littleEndian;
  }

  /** A view of [start, end) that reads nothing past `end` (an EXIF segment whose offsets stay relative to the file); all of it must be held. */
  block(start: number, end: number): ByteView {
    this.need(start, end);
    return new ByteView(this.held, end, this.littleEndian);
  }

  withOrder(littleEndian: boolean): ByteView {
    return new ByteView(this.held, this.limit, littleEndian);
  }

  /** Throws unless the bytes [from, to) are readable. */
  need(from: number, to: number): void {
    if (!Number.isSafeInteger(to) || from < 0 || to > this.limit)
      throw new MalformedHeader(`bytes ${from} to ${to} out of range`);
    const status = this.held.status(from, to);
    if (status === 'held') return;
    if (status === 'passed') throw new OutOfReach(`bytes ${from} to ${to} went by unread`);
    if (this.held.final) throw new MalformedHeader('header cut short');
    throw new NeedMoreBytes(from, to);
  }

  u8(at: number): number {
    this.need(at, at + 1);
    return this.held.byte(at);
  }

  u16(at: number): number {
    this.need(at, at + 2);
    const [a, b] = [this.held.byte(at), this.held.byte(at + 1)];
    return this.littleEndian ? a | (b << 8) : (a << 8) | b;
  }

  u24(at: number): number {
    this.need(at, at + 3);
    const [a, b, c] = [this.held.byte(at), this.held.byte(at + 1), this.held.byte(at + 2)];
    return this.littleEndian ? a | (b << 8) | (c << 16) : (a << 16) | (b << 8) | c;
  }

  u32(at: number): number {
    this.need(at, at + 4);
    const [high, low] = this.littleEndian ? [this.u16(at + 2), this.u16(at)] : [this.u16(at), this.u16(at + 2)];
    return high * 0x10000 + low;
  }

  i32(at: number): number {
    return this.u32(at) | 0;
  }

  ascii(at: number, length: number): string {
    this.need(at, at + length);
    let text = '';
    for (let i = at; i < at + length; i++) text += String.fromCharCode(this.held.byte(i));
    return text;
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
