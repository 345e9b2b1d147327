/**
 * What an `Idempotency-Key` is held to (functions/http/idempotency.ts): a digest of the request's path,
 * query and body. Two requests with the same digest must ask for the same thing, so the digest may leave
 * out only what the handler never sees: the multipart boundary, which a client's form library picks at
 * random per attempt (a resent push must still be recognised as the same push).
 *
 * The boundary is left out only where the parser (busboy, functions/library/multipart.ts) takes it as a
 * delimiter, and only for a multipart/form-data body: the body is cut at exactly the parser's delimiters
 * and the pieces are hashed with their lengths. A boundary string anywhere else (inside a part's data, or
 * in a body of another type that merely names a `boundary` parameter) is content like any other byte.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { delimiterOf, delimiterOffsets } from '../library/multipart-delimiters.ts';

/** RFC 9110 tokens and quoted strings (without `\` escapes): what busboy's content-type parser accepts. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]*"';
const PARAMETER = `[ \\t]*;[ \\t]*(${TOKEN})=(${TOKEN}|${QUOTED})`;
const CONTENT_TYPE = new RegExp(`^(${TOKEN}/${TOKEN})((?:${PARAMETER})*)[ \\t]*$`);
const PARAMETERS = new RegExp(PARAMETER, 'g');

/**
 * The boundary of a multipart/form-data content type, read as busboy reads it (its first `boundary`
 * parameter); undefined for any other type, and for a content type busboy would refuse or that this
 * stricter reading does not follow (a quoted value with a `\` escape): such a body is digested whole.
 */
export function formDataBoundary(contentType: string | undefined): string | undefined {
  const match = CONTENT_TYPE.exec(contentType ?? '');
  if (match?.[1]?.toLowerCase() !== 'multipart/form-data') return undefined;
  const value = [...(match[2] ?? '').matchAll(PARAMETERS)].find(([, name]) => name?.toLowerCase() === 'boundary')?.[2];
  return (value?.startsWith('"') ? value.slice(1, -1) : value) || undefined;
}

/**
 * The body cut where the parser finds a delimiter: at `CRLF--boundary` whatever follows it (the parser
 * ends the part there in any case), and at `--boundary` opening the body.
 */
function* pieces(body: Buffer, boundary: string): Generator<Buffer> {
  const delimiter = delimiterOf(boundary);
  let start = 0;
  for (const at of delimiterOffsets(body, delimiter)) {
    yield body.subarray(start, Math.max(at, 0));
    start = at + delimiter.length;
  }
  yield body.subarray(start);
}

/** A digest of what the request asks for (the caller and route are in the key's own digest). */
export function requestDigest(
  event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded' | 'pathParameters' | 'queryStringParameters'>,
  contentType: string | undefined,
): string {
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  const boundary = formDataBoundary(contentType);
  // The first line says which of the two forms follows. A whole body is hashed as it always was: the keys
  // of JSON requests stored before forms were cut still match their retries.
  const hash = createHash('sha256')
    .update(
      JSON.stringify([
        event.pathParameters ?? {},
        event.queryStringParameters ?? {},
        ...(boundary === undefined ? [] : ['multipart/form-data']),
      ]),
    )
    .update('\n');
  if (boundary === undefined) hash.update(body);
  // Each piece with its length, so that no two different cuts hash the same.
  else for (const piece of pieces(body, boundary)) hash.update(`${piece.length}\n`).update(piece);
  return hash.digest('base64');
}
