/**
 * Where busboy finds a multipart body's delimiters, without busboy (so that a module needing only this
 * does not carry the parser): the buffered parser (multipart-buffered.ts) and the Idempotency-Key's digest
 * (functions/http/request-digest.ts) cut a body at exactly the places the parser does.
 */

/** Busboy's delimiter for a boundary: its search needle, CRLF and two dashes before the boundary's UTF-8. */
export const delimiterOf = (boundary: string): Buffer => Buffer.from(`\r\n--${boundary}`);

/**
 * The offsets of `delimiter` in `bytes`, in order. Busboy reads the body as if preceded by CRLF, so a body
 * opening with the delimiter's dashes has one at -2. The delimiter holds its only CR at its start, so its
 * occurrences never overlap.
 */
export function* delimiterOffsets(bytes: Buffer, delimiter: Buffer): Generator<number> {
  let at = bytes.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2)) ? -2 : bytes.indexOf(delimiter);
  for (; at !== -1; at = bytes.indexOf(delimiter, at + delimiter.length)) yield at;
}
