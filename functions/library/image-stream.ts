/**
 * An image's bytes on their way to the bucket: the type sniffed from the first bytes, then every byte
 * counted and hashed as it passes, and the header's metadata read from the leading bytes (at most
 * IMAGE_HEADER_MAX_BYTES held), without buffering the file. The bytes after the header are not judged: they
 * are only ever served as the sniffed image type, for download (docs/security.md, Stored images).
 */
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { SNIFF_BYTES, sniffImageType } from '../domain/library.ts';
import { DomainError } from '../shared/errors.ts';
import { imageTooLarge, notAnImage } from './image-errors.ts';
import { ImageHeaderReader, type ImageMetadata } from './image-header/index.ts';

/** Reads just enough leading bytes to know the type; the returned body replays them, then the rest. */
export async function sniffStream(stream: Readable): Promise<{ mimeType: string; body: Readable }> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let length = 0;
  while (length < SNIFF_BYTES) {
    const next = await chunks.next();
    if (next.done) break;
    head.push(next.value);
    length += next.value.length;
  }
  const mimeType = sniffImageType(Buffer.concat(head));
  if (mimeType === undefined) {
    stream.destroy();
    throw notAnImage(length);
  }
  async function* replay() {
    yield* head;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { mimeType, body: Readable.from(replay(), { objectMode: false }) };
}

const HEADER_SLICE_BYTES = 64 * 1024;

/**
 * Counts and hashes bytes passing through and reads the image header of the sniffed type; fails with a
 * 413 the moment they exceed `maxBytes`, and with a 415 UnreadableImage when the header cannot be read. A body that comes as one
 * chunk (a pushed image: the request body is decoded whole) is hashed only when its MD5 is asked for:
 * S3 reports the MD5 of what it stored in one PutObject, and the 4 MB hash is then not needed at all.
 */
export class ImageMeter extends Transform {
  // Not named `size`: SDK body helpers read a numeric `body.size` as the body's length (Blob detection)
  // and would then expect zero parts from a stream of any size.
  byteCount = 0;
  private readonly hash = createHash('md5');
  /** The first chunk while it is the only one, not hashed yet. */
  private unhashed: Buffer | undefined;
  private chunks = 0;
  /** Set once every byte is hashed. */
  private digest: Buffer | undefined;
  private readonly header: ImageHeaderReader;
  /** Set once the header is read: from then on no chunk goes to the reader. */
  private metadata: ImageMetadata | undefined;
  private readonly maxBytes: number;

  constructor(maxBytes: number, mimeType: string) {
    super();
    this.maxBytes = maxBytes;
    this.header = new ImageHeaderReader(mimeType);
  }

  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null, data?: Buffer) => void,
  ): void {
    try {
      this.count(chunk);
    } catch (error) {
      return done(error as Error);
    }
    done(null, chunk);
  }

  override _flush(done: (error?: Error | null) => void): void {
    try {
      this.settle();
    } catch (error) {
      return done(error as Error);
    }
    done();
  }

  /**
   * Measures a whole body read from `source` without passing it on: for a body that goes nowhere (an object
   * already in the bucket), a stream stage of its own would cost a third on top of the hash (figure 5c).
   */
  async measure(source: AsyncIterable<Buffer>): Promise<void> {
    for await (const chunk of source) this.count(chunk);
    this.settle();
  }

  /** One chunk: counted, its header bytes read, hashed; throws the refusal. */
  private count(chunk: Buffer): void {
    this.byteCount += chunk.length;
    if (this.byteCount > this.maxBytes) throw imageTooLarge(this.maxBytes);
    this.readHeader(chunk);
    if (this.chunks++ === 0) this.unhashed = chunk;
    else {
      this.hashUnhashed();
      this.hash.update(chunk);
    }
  }

  private settle(): void {
    this.metadata ??= this.header.end();
    if (this.unhashed === undefined) this.digest = this.hash.digest();
  }

  /** The header's metadata, after the last byte. */
  imageMetadata(): ImageMetadata {
    if (this.metadata === undefined) throw new Error('the image metadata is read only once the stream has ended');
    return this.metadata;
  }

  /**
   * Feeds the reader in slices until it has the header: a pushed image arrives as one 4 MB chunk, and the
   * reader would otherwise copy its first MiB to find a header that usually ends within a few KiB.
   */
  private readHeader(chunk: Buffer): void {
    for (let at = 0; this.metadata === undefined && at < chunk.length; at += HEADER_SLICE_BYTES) {
      this.metadata = this.header.add(chunk.subarray(at, at + HEADER_SLICE_BYTES));
    }
  }

  private hashUnhashed(): void {
    if (this.unhashed === undefined) return;
    this.hash.update(this.unhashed);
    this.unhashed = undefined;
  }

  /** 32 uppercase hex, after the last byte (a one-chunk body is hashed now). */
  md5(): string {
    if (this.digest === undefined) {
      this.hashUnhashed();
      this.digest = this.hash.digest();
    }
    return this.digest.toString('hex').toUpperCase();
  }

  /** The MD5 as a Content-MD5 header (base64) once the last byte has passed; undefined for a one-chunk body, not hashed yet. */
  readonly contentMd5 = (): string | undefined => this.digest?.toString('base64');
}

/** The DomainError behind a stream failure: the one a source or the meter raised, not the SDK's wrapping of it. */
export function clientError(error: unknown, ...streams: Readable[]): unknown {
  for (const stream of streams) {
    const cause = (stream as Readable & { errored?: unknown }).errored;
    if (cause instanceof DomainError) return cause;
  }
  return error;
}
