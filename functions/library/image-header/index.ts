/**
 * Image metadata (displayed size, EXIF orientation, declared density) read from the leading bytes of an image
 * while it streams by, without buffering the file: at most IMAGE_HEADER_MAX_BYTES are held, and only until the
 * header is read. One file per format family beside this one; see README.md for the decisions.
 */
import { ApiError } from '../../shared/errors.ts';
import { readBmp } from './bmp.ts';
import { ByteView, MalformedHeader, NeedMoreBytes } from './bytes.ts';
import { readGif } from './gif.ts';
import { readHeif } from './heif.ts';
import { readJpeg } from './jpeg.ts';
import type { ImageMetadata } from './metadata.ts';
import { readPng } from './png.ts';
import { readTiff } from './tiff.ts';
import { readWebp } from './webp.ts';

export type { ImageMetadata } from './metadata.ts';

/**
 * The most leading bytes ever read for the header: 1 MiB. A JPEG may carry several 64 KiB APP segments before
 * its frame header (EXIF with a thumbnail, ICC profiles split over APP2 segments, XMP and extended XMP such as
 * a phone's depth map, Photoshop APP13 with a preview), which reach several hundred KiB in real files; 1 MiB
 * covers them with room, and is held only while the header is unread (a few KiB for most files).
 */
export const IMAGE_HEADER_MAX_BYTES = 1024 * 1024;

/** 415 UnreadableImage: the bytes are of an accepted type but their size cannot be read. */
export const unreadableImage = (reason: string): ApiError => new ApiError(415, 'UnreadableImage', `The image header could not be read: ${reason}.`);

type HeaderParser = (view: ByteView) => ImageMetadata;

const PARSERS: Record<string, HeaderParser> = {
  'image/jpeg': readJpeg,
  'image/png': readPng,
  'image/gif': readGif,
  'image/webp': readWebp,
  'image/tiff': readTiff,
  'image/bmp': readBmp,
  'image/heic': readHeif,
  'image/heif': readHeif,
  'image/avif': readHeif,
  'image/heic-sequence': readHeif,
  'image/heif-sequence': readHeif,
};

/**
 * Collects the leading bytes of one image as they stream by and reads its metadata as soon as it can.
 * `add` returns the metadata once known (and from then on ignores further chunks, buffering nothing more),
 * undefined while more bytes are needed, and throws unreadableImage(...) when the header lies beyond
 * IMAGE_HEADER_MAX_BYTES or is malformed. `end()` is called at end of file: it returns the metadata, or throws
 * unreadableImage(...) (truncated header). Never buffers more than IMAGE_HEADER_MAX_BYTES.
 */
export class ImageHeaderReader {
  private readonly parse: HeaderParser;
  private held = new Uint8Array(0);
  private length = 0;
  /** The parser runs again only once this many bytes are held (it said so the last time). */
  private needed = 0;
  private result: ImageMetadata | undefined;
  private failure: ApiError | undefined;

  constructor(mimeType: string) {
    const parse = PARSERS[mimeType];
    if (!parse) throw unreadableImage(`no header reader for ${mimeType}`);
    this.parse = parse;
  }

  /** Bytes held right now (for tests of the bound). */
  get heldBytes(): number {
    return this.held.length;
  }

  add(chunk: Uint8Array): ImageMetadata | undefined {
    if (this.failure) throw this.failure;
    if (this.result) return this.result;
    this.hold(chunk.subarray(0, IMAGE_HEADER_MAX_BYTES - this.length));
    if (this.length >= this.needed) this.attempt(false);
    if (!this.result && (this.length >= IMAGE_HEADER_MAX_BYTES || this.needed > IMAGE_HEADER_MAX_BYTES)) {
      this.fail(`no complete header within the first ${IMAGE_HEADER_MAX_BYTES} bytes`);
    }
    return this.result;
  }

  end(): ImageMetadata {
    if (this.failure) throw this.failure;
    if (!this.result) this.attempt(true);
    if (!this.result) this.fail('the file ends inside its header');
    return this.result as ImageMetadata;
  }

  private hold(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const length = this.length + bytes.length;
    if (length > this.held.length) {
      const grown = new Uint8Array(Math.min(IMAGE_HEADER_MAX_BYTES, Math.max(length, this.needed, this.held.length * 2, 4096)));
      grown.set(this.held.subarray(0, this.length));
      this.held = grown;
    }
    this.held.set(bytes, this.length);
    this.length = length;
  }

  private attempt(final: boolean): void {
    try {
      this.result = this.parse(new ByteView(this.held, this.length, final));
      this.held = new Uint8Array(0); // the header is read: hold nothing more
    } catch (error) {
      if (error instanceof NeedMoreBytes && !final) this.needed = error.needed;
      else if (error instanceof MalformedHeader) this.fail(error.message);
      else throw error;
    }
  }

  private fail(reason: string): never {
    this.held = new Uint8Array(0);
    this.failure = unreadableImage(reason);
    throw this.failure;
  }
}
