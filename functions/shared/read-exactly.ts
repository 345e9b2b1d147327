/**
 * A stream read whole into one buffer of the size it must have, copying each byte once: collecting the
 * chunks and joining them holds the bytes twice at the end (the renditions function reads originals of up
 * to RENDITION_MAX_BYTES this way).
 */
import type { Readable } from 'node:stream';

/** The `size` bytes of `body`, in a buffer of their own (no pool: it may be moved to a worker); throws when it sends another number. */
export async function readExactly(body: Readable, size: number, what: string): Promise<Buffer> {
  const bytes = Buffer.allocUnsafeSlow(size);
  let filled = 0;
  try {
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      if (filled + chunk.length > size) throw new Error(`${what} sent more than ${size} bytes`);
      bytes.set(chunk, filled);
      filled += chunk.length;
    }
  } finally {
    body.destroy();
  }
  if (filled !== size) throw new Error(`${what} ended after ${filled} of ${size} bytes`);
  return bytes;
}
