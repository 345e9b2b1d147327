/**
 * The digests S3 checks a request body against before it stores anything: `Content-MD5`, one
 * `x-amz-checksum-<algorithm>`, and the SHA-256 the signature covers (`x-amz-content-sha256` as a hex
 * digest). A mismatch is S3's 400 (BadDigest, XAmzContentSHA256Mismatch) and nothing is stored: the body is
 * spooled to a temporary file while it is hashed, and only a verified file is handed on to be stored.
 */
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { crc32c } from './crc32c.ts';
import { AwsChunkedDecoder } from './s3-aws-chunked.ts';
import { S3Error, s3Error } from './s3-error.ts';

/** A running digest of the body, in the form its header gives it. */
interface Digest {
  update(chunk: Buffer): void;
  result(): string;
}

const hashDigest = (hash: Hash, encoding: 'base64' | 'hex'): Digest => ({
  update: (chunk) => hash.update(chunk),
  result: () => hash.digest(encoding),
});

/** A CRC as S3 gives it: the big-endian 32-bit value in base64. */
function crcDigest(next: (chunk: Buffer, previous: number) => number): Digest {
  let value = 0;
  return {
    update: (chunk) => (value = next(chunk, value)),
    result: () => {
      const bytes = Buffer.alloc(4);
      bytes.writeUInt32BE(value >>> 0);
      return bytes.toString('base64');
    },
  };
}

/** The `x-amz-checksum-*` algorithms checked here; S3's CRC64NVME is refused as not implemented. */
const NOT_CHECKSUMS = new Set(['x-amz-checksum-mode', 'x-amz-checksum-type', 'x-amz-checksum-algorithm']);

const CHECKSUMS: Record<string, { name: string; digest: () => Digest }> = {
  'x-amz-checksum-crc32': { name: 'CRC32', digest: () => crcDigest(crc32) },
  'x-amz-checksum-crc32c': { name: 'CRC32C', digest: () => crcDigest(crc32c) },
  'x-amz-checksum-sha1': { name: 'SHA1', digest: () => hashDigest(createHash('sha1'), 'base64') },
  'x-amz-checksum-sha256': { name: 'SHA256', digest: () => hashDigest(createHash('sha256'), 'base64') },
};

export interface Expectation {
  /** The value the request gave (a trailer's once the body has been read). */
  expected: () => string | undefined;
  digest: Digest;
  /** The refusal when the body's digest is another. */
  refusal: (computed: string) => Error;
}

const header = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * What the body must hash to, from the request's headers and the payload hash its signature covers; an
 * empty list when nothing is to be checked. A malformed Content-MD5 is refused at once (InvalidDigest).
 */
export function expectedDigests(
  headers: Record<string, string | string[] | undefined>,
  payloadHash: string,
): Expectation[] {
  const expectations: Expectation[] = [];
  const md5 = header(headers, 'content-md5');
  if (md5 !== undefined) {
    if (Buffer.from(md5, 'base64').length !== 16 || !/^[A-Za-z0-9+/]{22}==$/.test(md5))
      throw new S3Error('InvalidDigest', 'The Content-MD5 you specified was invalid.');
    expectations.push({
      expected: () => md5,
      digest: hashDigest(createHash('md5'), 'base64'),
      refusal: () => new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.'),
    });
  }
  for (const [name, value] of Object.entries(headers)) {
    // Not checksums: what to compute (mode, type) or, on CreateMultipartUpload, which algorithm the parts will carry.
    if (!name.startsWith('x-amz-checksum-') || NOT_CHECKSUMS.has(name)) continue;
    const checksum = CHECKSUMS[name];
    if (!checksum)
      throw new S3Error('NotImplemented', `The local S3 does not compute ${name}; use CRC32, CRC32C, SHA1 or SHA256.`);
    expectations.push({
      expected: () => String(Array.isArray(value) ? value[0] : value),
      digest: checksum.digest(),
      // S3's answer to a checksum header the body does not match (a trailer's is XAmzContentChecksumMismatch).
      refusal: () =>
        new S3Error('BadDigest', `The ${checksum.name} you specified did not match the calculated checksum.`),
    });
  }
  if (/^[0-9a-f]{64}$/i.test(payloadHash))
    expectations.push({
      expected: () => payloadHash.toLowerCase(),
      digest: hashDigest(createHash('sha256'), 'hex'),
      refusal: (computed) =>
        s3Error(
          'XAmzContentSHA256Mismatch',
          "The provided 'x-amz-content-sha256' header does not match what was computed.",
          {
            ClientComputedContentSHA256: payloadHash,
            S3ComputedContentSHA256: computed,
          },
        ),
    });
  return expectations;
}

/**
 * The checksum an aws-chunked body names in `x-amz-trailer` and sends after its last chunk (read from
 * `trailers` once the body has been decoded), or none when it names no trailer.
 */
export function trailerExpectations(
  headers: Record<string, string | string[] | undefined>,
  trailers: () => Map<string, string>,
): Expectation[] {
  const name = header(headers, 'x-amz-trailer')?.trim().toLowerCase();
  if (name === undefined) return [];
  const checksum = CHECKSUMS[name];
  if (!checksum)
    throw new S3Error('InvalidRequest', `The value specified in the x-amz-trailer header is not supported: ${name}`);
  return [
    {
      expected: () => trailers().get(name),
      digest: checksum.digest(),
      refusal: () =>
        s3Error(
          'XAmzContentChecksumMismatch',
          "The provided 'x-amz-checksum' header does not match what was computed.",
        ),
    },
  ];
}

/** A verified body waiting in a temporary file: read it (once), then remove it. */
export interface SpooledBody {
  path: string;
  size: number;
  /**
   * The file, already open: removing it afterwards cannot fail a read that has not begun (a reader that
   * answers without reading the body, such as CreateMultipartUpload's, would otherwise race the removal).
   */
  open(): Promise<Readable>;
  remove(): Promise<void>;
}

/**
 * Writes `body` to a temporary file in `directory` while hashing it, then checks every expectation; a
 * mismatch removes the file and throws S3's refusal. `transform`, when given, turns the wire bytes into
 * the object's (aws-chunked decoding) before they are hashed and written.
 */
export async function spoolVerified(
  body: Readable,
  expectations: readonly Expectation[],
  directory: string,
  transform?: Transform,
): Promise<SpooledBody> {
  const path = join(directory, `${randomBytes(8).toString('hex')}.incoming`);
  const remove = () => rm(path, { force: true });
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      for (const { digest } of expectations) digest.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await (transform
      ? pipeline(body, transform, meter, createWriteStream(path))
      : pipeline(body, meter, createWriteStream(path)));
    for (const { expected, digest, refusal } of expectations) {
      const computed = digest.result();
      if (computed !== expected()) throw refusal(computed);
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, size, open: async () => (await open(path)).createReadStream(), remove };
}

/** What decides how a request's body is checked. */
export interface BodyChecks {
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, string | string[] | undefined>;
  /** The payload hash the signature covers. */
  payloadHash: string;
  /** A presigned URL: its x-amz-checksum-* parameters stand for headers (S3 checks a presigned checksum too). */
  presigned: boolean;
  /** Where the body waits while it is verified. */
  directory: string;
  /** Spool the body even when nothing is to be checked (the caller reads it). */
  always: boolean;
}

/**
 * The request's body, verified, in a temporary file; undefined when there is nothing to check and the
 * body may pass as it is. An aws-chunked body (STREAMING-UNSIGNED-PAYLOAD-TRAILER) is decoded, its length
 * and trailing checksum checked, and `aws-chunked` taken off its Content-Encoding, as S3 stores it.
 */
export async function verifiedBody(body: Readable, checks: BodyChecks): Promise<SpooledBody | undefined> {
  const { headers, payloadHash } = checks;
  const given = checks.presigned
    ? {
        ...headers,
        ...Object.fromEntries(
          Object.entries(checks.query)
            .map(([name, value]) => [name.toLowerCase(), value] as const)
            .filter(([name]) => name.startsWith('x-amz-checksum-')),
        ),
      }
    : headers;
  if (payloadHash !== 'STREAMING-UNSIGNED-PAYLOAD-TRAILER') {
    if (payloadHash.startsWith('STREAMING-'))
      throw new S3Error('NotImplemented', `The local S3 does not take ${payloadHash} bodies (signed chunks).`);
    const expectations = expectedDigests(given, payloadHash);
    return expectations.length > 0 || checks.always ? spoolVerified(body, expectations, checks.directory) : undefined;
  }
  const decoder = new AwsChunkedDecoder();
  const expectations = [
    ...expectedDigests(given, 'UNSIGNED-PAYLOAD'),
    ...trailerExpectations(headers, () => decoder.trailers),
  ];
  const spooled = await spoolVerified(body, expectations, checks.directory, decoder);
  const declared = header(headers, 'x-amz-decoded-content-length');
  if (declared !== undefined && Number(declared) !== decoder.decodedLength) {
    await spooled.remove();
    throw new S3Error(
      'IncompleteBody',
      'You did not provide the number of bytes specified by the Content-Length HTTP header',
    );
  }
  const encodings = (header(headers, 'content-encoding') ?? '').split(',').map((coding) => coding.trim());
  const kept = encodings.filter((coding) => coding !== '' && coding !== 'aws-chunked');
  if (kept.length > 0) headers['content-encoding'] = kept.join(', ');
  else delete headers['content-encoding'];
  return spooled;
}
