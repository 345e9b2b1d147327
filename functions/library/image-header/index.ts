/**
 * Image metadata (displayed size, EXIF orientation, declared density) read from an image's bytes while they
 * stream by, without buffering the file: at most IMAGE_HEADER_MAX_BYTES are held, and only until the header is
 * read. One file per format family beside this one; see README.md for the decisions.
 */
import { DomainError } from '../../shared/errors.ts';
import { ByteView, HeldBytes, MalformedHeader, NeedMoreBytes } from './bytes.ts';
import type { ImageMetadata } from './metadata.ts';
import { PARSERS, type HeaderParser } from './parsers.ts';

export type { ImageMetadata } from './metadata.ts';
export { decodingOf, type Decoding } from './decoding.ts';

/**
 * The most bytes ever held for the header, 1 MiB: a JPEG, PNG, GIF, WebP or BMP header must end within the
 * file's first IMAGE_HEADER_MAX_BYTES; a TIFF IFD or HEIF meta box far into the file is read from a window of
 * this size less the 64 KiB head kept. A JPEG may carry several 64 KiB APP segments before
 * its frame header (EXIF with a thumbnail, ICC profiles split over APP2 segments, XMP and extended XMP such as
 * a phone's depth map, Photoshop APP13 with a preview), which reach several hundred KiB in real files; 1 MiB
 * covers them with room, and is held only while the header is unread (a few KiB for most files).
 */
export const IMAGE_HEADER_MAX_BYTES = 1024 * 1024;

/** 415 UnreadableImage: the bytes are of an accepted type but their size cannot be read. */
export const unreadableImage = (reason: string): DomainError =>
  new DomainError('UnsupportedMedia', 'UnreadableImage', `The image header could not be read: ${reason}.`);

/**
 * The parser's reads allowed over all its runs: a fixed allowance plus so many per byte of the file seen. A
 * run reads from the file's start, so running it on every chunk that completes a segment is quadratic in the
 * chunks a server chooses to send (a JPEG of 4-byte COM segments a byte at a time: every run walks every
 * segment so far). A run that would pass the budget waits for more bytes (or the end of the file, or a full
 * buffer), which keeps the work linear in the bytes read. Real headers read a few dozen to a few hundred
 * bytes per run and stay within the allowance even fed a byte at a time: they are read the moment they are
 * complete.
 */
const EXAMINED_ALLOWANCE = 64 * 1024;
const EXAMINED_PER_BYTE_SEEN = 4;

/** The file's first bytes kept when the reader skips ahead (a TIFF header is 8 bytes, a HEIF ftyp a few dozen). */
const HEAD_KEPT_WHEN_SKIPPING = 64 * 1024;

/** A buffer holding `length` bytes of `bytes` and room for `wanted` in all, grown by doubling up to `cap`. */
function grown(bytes: Uint8Array, length: number, wanted: number, cap: number): Uint8Array {
  if (wanted <= bytes.length) return bytes;
  const larger = new Uint8Array(Math.min(cap, Math.max(wanted, bytes.length * 2, 4096)));
  larger.set(bytes.subarray(0, length));
  return larger;
}

/**
 * Collects the leading bytes of one image as they stream by and reads its metadata as soon as it can.
 * `add` returns the metadata once known (and from then on ignores further chunks, buffering nothing more),
 * undefined while more bytes are needed, and throws unreadableImage(...) when the header needs more than
 * IMAGE_HEADER_MAX_BYTES or is malformed. `end()` is called at end of file: it returns the metadata, or throws
 * unreadableImage(...) (truncated header). Never holds more than IMAGE_HEADER_MAX_BYTES.
 */
export class ImageHeaderReader {
  private readonly parse: HeaderParser;
  private readonly skipsAhead: boolean;
  private held = new HeldBytes();
  /** Bytes seen so far (held or not). */
  private seen = 0;
  /** The parser runs again only once these bytes are held (it asked for them the last time). */
  private wanted: NeedMoreBytes = new NeedMoreBytes(0, 0);
  private result: ImageMetadata | undefined;
  private failure: DomainError | undefined;
  /** Bytes the parser read over all its runs, and in its last run (the likely cost of the next). */
  private examined = 0;
  private lastRunExamined = 0;

  constructor(mimeType: string) {
    const parser = PARSERS[mimeType];
    if (!parser) throw unreadableImage(`no header reader for ${mimeType}`);
    this.parse = parser.parse;
    this.skipsAhead = parser.skipsAhead;
  }

  /** Bytes the parser has read over all its runs (for tests of the work bound). */
  get bytesExamined(): number {
    return this.examined;
  }

  /** Bytes held right now (for tests of the bound). */
  get heldBytes(): number {
    return this.held.head.length + this.held.window.length;
  }

  add(chunk: Uint8Array): ImageMetadata | undefined {
    if (this.failure) throw this.failure;
    if (this.result) return this.result;
    const at = this.seen;
    this.seen += chunk.length;
    this.hold(chunk, at);
    while (!this.result && this.due()) this.attempt(chunk, at);
    return this.result;
  }

  /** Whether to run the parser now: the bytes it asked for are held, and the run fits the work budget. */
  private due(): boolean {
    if (this.held.status(this.wanted.from, this.wanted.to) !== 'held') return false;
    const budget = EXAMINED_ALLOWANCE + EXAMINED_PER_BYTE_SEEN * this.seen;
    return this.examined + this.lastRunExamined <= budget || this.heldIsFull();
  }

  /** Where the held part grows next, and the file offset it may grow to (the head, or the window when skipping). */
  private growth(): { skipping: boolean; next: number; cap: number } {
    const held = this.held;
    const skipping = held.windowStart > held.headLength;
    return skipping
      ? { skipping, next: held.windowEnd, cap: held.windowStart + IMAGE_HEADER_MAX_BYTES - held.head.length }
      : { skipping, next: held.headLength, cap: IMAGE_HEADER_MAX_BYTES };
  }

  /** No more bytes can be held: the run cannot wait for more. */
  private heldIsFull(): boolean {
    const { next, cap } = this.growth();
    return next >= cap;
  }

  end(): ImageMetadata {
    if (this.failure) throw this.failure;
    this.held.final = true;
    if (!this.result) this.attempt(new Uint8Array(0), this.seen);
    if (!this.result) this.fail('the file ends inside its header');
    return this.result as ImageMetadata;
  }

  /** Copies the part of `chunk` (file bytes from `at`) that extends the head or, when skipping ahead, the window. */
  private hold(chunk: Uint8Array, at: number): void {
    const held = this.held;
    const { skipping, next, cap } = this.growth();
    const bytes = chunk.subarray(Math.max(0, next - at), Math.max(0, cap - at));
    if (next < at || bytes.length === 0) return;
    if (skipping) {
      held.window = grown(held.window, held.windowLength, held.windowLength + bytes.length, cap - held.windowStart);
      held.window.set(bytes, held.windowLength);
      held.windowLength += bytes.length;
    } else {
      held.head = grown(
        held.head,
        held.headLength,
        Math.max(held.headLength + bytes.length, this.wanted.to),
        IMAGE_HEADER_MAX_BYTES,
      );
      held.head.set(bytes, held.headLength);
      held.headLength += bytes.length;
      held.windowStart = held.headLength;
    }
  }

  /** Runs the parser; on "need more bytes" remembers what for, skipping ahead to them when they lie beyond the head. */
  private attempt(chunk: Uint8Array, at: number): void {
    const read = this.held;
    const before = read.examined;
    try {
      const metadata = this.parse(new ByteView(read));
      this.count(read.examined - before);
      this.answer(metadata);
    } catch (error) {
      this.count(read.examined - before);
      if (error instanceof MalformedHeader) this.fail(error.message);
      if (!(error instanceof NeedMoreBytes) || this.held.final) throw error;
      this.wanted = error;
      const held = this.held;
      const skipping = held.windowStart > held.headLength;
      if (!skipping && error.to <= IMAGE_HEADER_MAX_BYTES) return; // the head is still filling
      if (
        skipping &&
        error.from >= held.windowStart &&
        error.to <= held.windowStart + IMAGE_HEADER_MAX_BYTES - held.head.length
      )
        return; // the window is still filling
      const canSkip =
        this.skipsAhead &&
        error.from >= HEAD_KEPT_WHEN_SKIPPING &&
        error.to - error.from <= IMAGE_HEADER_MAX_BYTES - HEAD_KEPT_WHEN_SKIPPING;
      if (skipping || !canSkip) {
        if (error.known) return this.answer(error.known);
        this.fail(
          `no complete header within ${IMAGE_HEADER_MAX_BYTES} bytes${skipping ? ` from byte ${held.windowStart}` : ''}`,
        );
      }
      this.skipTo(error.from, chunk, at);
    }
  }

  private count(examined: number): void {
    this.examined += examined;
    this.lastRunExamined = examined;
  }

  private answer(metadata: ImageMetadata): void {
    this.result = metadata;
    this.held = new HeldBytes(); // the header is read: hold nothing more
  }

  /** Keeps the head's first bytes and holds the file from `from` on, with the bytes of it already held or in `chunk`. */
  private skipTo(from: number, chunk: Uint8Array, at: number): void {
    const held = this.held;
    const kept = Math.min(held.headLength, HEAD_KEPT_WHEN_SKIPPING, from);
    const skipped = new HeldBytes();
    skipped.head = held.head.slice(0, kept);
    skipped.headLength = kept;
    skipped.window = held.head.slice(Math.min(from, held.headLength), held.headLength);
    skipped.windowStart = from;
    skipped.windowLength = skipped.window.length;
    this.held = skipped;
    this.hold(chunk, at);
  }

  private fail(reason: string): never {
    this.held = new HeldBytes();
    this.failure = unreadableImage(reason);
    throw this.failure;
  }
}
