/**
 * Image inputs and the multipart/form-data bodies built from them. The body is assembled into one
 * `Uint8Array` before the first attempt: a retry resends exactly the same bytes (the service matches an
 * Idempotency-Key against the request, boundary excepted), and every platform's `fetch` (React Native's
 * included) accepts it, where streaming bodies and `FormData` of `Blob`s are not portable.
 */

/** Bytes of an image: a `Blob` or `File` (browser, Node), bytes, or a stream (a Node `Readable`, a web `ReadableStream`). */
export type ImageData =
  Blob | Uint8Array | ArrayBuffer | AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>;

/** An image with an optional file name and content type (the service sniffs the type from the bytes anyway). */
export interface ImageInput {
  data: ImageData;
  filename?: string;
  contentType?: string;
}

export type Image = ImageData | ImageInput;

interface Part {
  name: string;
  filename?: string | undefined;
  contentType?: string | undefined;
  bytes: Uint8Array;
}

const encoder = new TextEncoder();

const isBlob = (value: unknown): value is Blob =>
  typeof (value as Blob | undefined)?.arrayBuffer === 'function' && typeof (value as Blob).size === 'number';
const isImageInput = (value: Image): value is ImageInput =>
  typeof value === 'object' && value !== null && 'data' in value && !isBlob(value);

async function bytesOf(data: ImageData): Promise<Uint8Array> {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (isBlob(data)) return new Uint8Array(await data.arrayBuffer());
  const chunks: Uint8Array[] = [];
  if (Symbol.asyncIterator in data) {
    for await (const chunk of data as AsyncIterable<Uint8Array | string>)
      chunks.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
  } else if (typeof (data as ReadableStream<Uint8Array>).getReader === 'function') {
    // Browsers whose ReadableStream is not async-iterable yet.
    const reader = (data as ReadableStream<Uint8Array>).getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
  } else {
    throw new TypeError(
      'an image must be a Blob, File, Uint8Array, ArrayBuffer, ReadableStream or async iterable of bytes (in React Native, pass a Uint8Array)',
    );
  }
  return concat(chunks);
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** One multipart part for an image, named `name`. */
export async function imagePart(name: string, image: Image): Promise<Part> {
  const input: ImageInput = isImageInput(image) ? image : { data: image };
  const blob = isBlob(input.data) ? input.data : undefined;
  const fileName = (blob as { name?: unknown } | undefined)?.name;
  return {
    name,
    filename: input.filename ?? (typeof fileName === 'string' && fileName !== '' ? fileName : 'image'),
    contentType: input.contentType ?? (blob?.type || 'application/octet-stream'),
    bytes: await bytesOf(input.data),
  };
}

/** A text form field (the presigned upload's policy fields). */
export const fieldPart = (name: string, value: string): Part => ({ name, bytes: encoder.encode(value) });

const quoted = (text: string) => text.replace(/["\r\n\\]/g, (character) => encodeURIComponent(character));

export function multipartBody(parts: readonly Part[]): { body: Uint8Array; contentType: string } {
  const boundary = `----photo-commerce-${Array.from({ length: 24 }, () => Math.floor(Math.random() * 16).toString(16)).join('')}`;
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${quoted(part.name)}"${part.filename !== undefined ? `; filename="${quoted(part.filename)}"` : ''}`;
    const type = part.contentType !== undefined ? `Content-Type: ${part.contentType}\r\n` : '';
    chunks.push(
      encoder.encode(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`),
      part.bytes,
      encoder.encode('\r\n'),
    );
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  return { body: concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
