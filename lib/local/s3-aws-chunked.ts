/**
 * The `aws-chunked` body the AWS SDK sends for a stream of unknown hash with a flexible checksum
 * (`x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER`): `<hex size>\r\n<bytes>\r\n` chunks, a
 * `0\r\n` chunk, then trailer lines such as `x-amz-checksum-crc32:<base64>\r\n` and an empty line. Decoded
 * here into the object's bytes, with the trailers kept for the checksum check (S3's "Using trailing
 * checksums"). Chunk signatures (`;chunk-signature=…`) are not verified: the SDK for JavaScript does not
 * sign chunks, and the front refuses the signed streaming modes.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { S3Error } from './s3-error.ts';

const CRLF = Buffer.from('\r\n');
/** A chunk header or trailer line longer than this is no aws-chunked body. */
const MAX_LINE_BYTES = 4096;

const malformed = () => new S3Error('IncompleteBody', 'The request body terminated unexpectedly');

export class AwsChunkedDecoder extends Transform {
  /** The trailers read after the last chunk, names in lower case. */
  readonly trailers = new Map<string, string>();
  /** Bytes decoded so far. */
  decodedLength = 0;
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes of the current chunk still to pass on; then its CRLF. */
  private remaining = 0;
  private state: 'size' | 'data' | 'data-end' | 'trailers' | 'done' = 'size';

  /** The next CRLF-terminated line of `pending`, or undefined until it has arrived. */
  private line(): string | undefined {
    const end = this.pending.indexOf(CRLF);
    if (end < 0) {
      if (this.pending.length > MAX_LINE_BYTES) throw malformed();
      return undefined;
    }
    const text = this.pending.subarray(0, end).toString('latin1');
    this.pending = this.pending.subarray(end + 2);
    return text;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    try {
      this.decode();
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    // Without a trailer the SDK ends the body right after the `0\r\n` chunk.
    const ended = this.state === 'done' || (this.state === 'trailers' && this.pending.length === 0);
    done(ended ? undefined : malformed());
  }

  private decode(): void {
    for (;;) {
      if (this.state === 'data') {
        if (this.pending.length === 0) return;
        const taken = this.pending.subarray(0, this.remaining);
        this.pending = this.pending.subarray(taken.length);
        this.remaining -= taken.length;
        this.decodedLength += taken.length;
        this.push(taken);
        if (this.remaining > 0) return;
        this.state = 'data-end';
        continue;
      }
      const line = this.line();
      if (line === undefined) return;
      if (this.state === 'data-end') {
        if (line !== '') throw malformed();
        this.state = 'size';
      } else if (this.state === 'size') {
        const size = /^([0-9a-fA-F]{1,16})(;.*)?$/.exec(line)?.[1];
        if (size === undefined) throw malformed();
        this.remaining = parseInt(size, 16);
        this.state = this.remaining === 0 ? 'trailers' : 'data';
      } else if (this.state === 'trailers') {
        if (line === '') {
          this.state = 'done';
          return;
        }
        const colon = line.indexOf(':');
        if (colon < 0) throw malformed();
        this.trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      } else return;
    }
  }
}
