/**
 * Streaming multipart/form-data (RFC 7578) over busboy: the parts of a body, one after another, each as a
 * byte stream, without collecting the body or a file. Accepts the forms browsers, curl and .NET's
 * HttpClient write: quoted or bare boundary and parameters, `filename*` (RFC 5987, wins over `filename`),
 * a preamble and epilogue, parts without a filename (busboy calls those "fields"; they are decoded as
 * latin1, which maps every byte to one character, so binary survives the round trip) and parts without
 * a content type.
 */
import { PassThrough, Readable } from 'node:stream';
import busboy from 'busboy';
import { DomainError, badRequest, payloadTooLarge, unsupportedMediaType } from '../shared/errors.ts';
import { tooManyItems } from '../domain/library.ts';

export interface MultipartPart {
  /** Zero-based position among the body's parts. */
  index: number;
  fieldName: string;
  fileName?: string;
  /** The content type the client declared (busboy's default when none: text/plain or application/octet-stream). */
  declaredType: string;
  /** The part's bytes. Read it to the end or destroy it: the next part is parsed only then. */
  stream: Readable;
}

export interface MultipartLimits {
  maxParts: number;
  maxPartBytes: number;
}

export const malformed = (reason: string) =>
  badRequest('MalformedMultipart', `The multipart/form-data body could not be read: ${reason}.`);

/** Buffers that request bodies are decoded into, reused by later requests of this process. */
const freeBodyBuffers: Buffer[] = [];
const MAX_POOLED_BODIES = 2;

export interface DecodedBody {
  bytes: Buffer;
  /** Gives the buffer to the next request: call once nothing reads `bytes` any more (the request has ended). */
  release(): void;
}

/**
 * The request body as bytes (API Gateway hands binary bodies over base64-encoded), decoded whole: the
 * body is capped (PUSH_MAX_BYTES, 4 MiB), and a file then reaches the uploader as a single slice of it
 * that goes to S3 without another copy (see store/s3-stream-upload.ts). The bytes land in a reused buffer
 * of at least `capacity` bytes: a fresh 4 MB buffer per push made V8 run a full GC every few pushes.
 */
export function decodeBody(body: string | null | undefined, isBase64Encoded: boolean, capacity: number): DecodedBody {
  const text = body ?? '';
  const encoding = isBase64Encoded ? 'base64' : 'utf8';
  const size = Buffer.byteLength(text, encoding);
  const pooled = freeBodyBuffers.findIndex((buffer) => buffer.length >= size);
  const buffer =
    pooled >= 0 ? (freeBodyBuffers.splice(pooled, 1)[0] as Buffer) : Buffer.allocUnsafe(Math.max(size, capacity));
  const written = buffer.write(text, 0, encoding);
  let released = false;
  return {
    bytes: buffer.subarray(0, written),
    release: () => {
      if (released) return;
      released = true;
      if (freeBodyBuffers.length < MAX_POOLED_BODIES) freeBodyBuffers.push(buffer);
    },
  };
}

/** Decoded bytes as the one-chunk stream multipartParts reads. */
export const bodyStream = (bytes: Buffer): Readable => Readable.from([bytes], { objectMode: false });

/** Decoded size of the body without decoding it. */
export function bodyBytes(body: string | null | undefined, isBase64Encoded: boolean): number {
  return Buffer.byteLength(body ?? '', isBase64Encoded ? 'base64' : 'utf8');
}

/**
 * Hands busboy's file stream out through a PassThrough, so that a consumer that stops reading (destroy)
 * does not stall the parser: the rest of the part is drained instead. Parse errors and the size limit
 * reach the consumer as DomainErrors.
 */
function detachable(file: Readable, limits: MultipartLimits): Readable {
  const out = new PassThrough();
  // The consumer may not be reading yet (or any more) when the part fails: it sees the error when it
  // reads (`errored`), and the process must not see an unhandled 'error' event.
  out.on('error', () => {});
  file.on('limit', () => out.destroy(payloadTooLarge(`A part is over ${limits.maxPartBytes} bytes.`)));
  file.on('error', (error: Error) => out.destroy(malformed(error.message)));
  out.on('close', () => {
    if (!file.readableEnded) {
      file.unpipe(out);
      file.resume();
    }
  });
  file.pipe(out);
  return out;
}

export function parser(contentType: string | undefined, limits: MultipartLimits) {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'multipart/form-data') throw unsupportedMediaType('Send the image as multipart/form-data.');
  try {
    return busboy({
      headers: { 'content-type': contentType as string },
      // `parts` counts every part; the file and field limits only keep busboy's own smaller defaults out of the way.
      // Busboy reports a limit once the count reaches it, so the limit is one more than the parts allowed.
      limits: {
        parts: limits.maxParts + 1,
        files: limits.maxParts + 1,
        fields: limits.maxParts + 1,
        fileSize: limits.maxPartBytes,
        fieldSize: limits.maxPartBytes,
        headerPairs: 100,
      },
      defCharset: 'latin1',
      defParamCharset: 'utf8',
    });
  } catch (error) {
    throw malformed((error as Error).message);
  }
}

/**
 * The body's parts in order. Only one part is being parsed at a time; the generator waits for the
 * consumer to read (or destroy) each part's stream. More than `maxParts` parts fail with TooManyItems.
 */
export async function* multipartParts(
  body: Readable,
  contentType: string | undefined,
  limits: MultipartLimits,
): AsyncGenerator<MultipartPart> {
  const form = parser(contentType, limits);
  const ready: MultipartPart[] = [];
  let failure: DomainError | undefined;
  let finished = false;
  let wake: (() => void) | undefined;
  let index = 0;
  const notify = () => {
    wake?.();
    wake = undefined;
  };

  form.on('file', (fieldName, file, info) => {
    ready.push({
      index: index++,
      fieldName,
      ...(info.filename !== undefined ? { fileName: info.filename } : {}),
      declaredType: info.mimeType,
      stream: detachable(file, limits),
    });
    notify();
  });
  form.on('field', (fieldName, value, info) => {
    if (info.valueTruncated) failure ??= payloadTooLarge(`Part "${fieldName}" is over ${limits.maxPartBytes} bytes.`);
    else
      ready.push({
        index: index++,
        fieldName,
        declaredType: info.mimeType,
        stream: Readable.from([Buffer.from(value, 'latin1')], { objectMode: false }),
      });
    notify();
  });
  form.on('partsLimit', () => {
    failure ??= tooManyItems(limits.maxParts);
    notify();
  });
  form.on('error', (error: Error) => {
    failure ??= malformed(error.message);
    notify();
  });
  form.on('close', () => {
    finished = true;
    notify();
  });
  body.on('error', (error) => form.destroy(error));
  body.pipe(form);

  try {
    for (;;) {
      const part = ready.shift();
      if (part) yield part;
      else if (failure) throw failure;
      else if (finished) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    if (!finished) {
      body.unpipe(form);
      body.destroy();
      form.destroy();
    }
  }
}
