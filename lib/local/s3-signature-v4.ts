/**
 * Signature Version 4 as S3 checks it, for the local S3's front (lib/local/s3-front.ts): a signed
 * Authorization header or a presigned URL's query, verified with the secret `secretAccessKeyOf` gives the
 * access key (lib/local/function-credentials.ts), with S3's refusals: an unknown key, a signature that does
 * not match, a clock more than 15 minutes off, an expired URL.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { secretAccessKeyOf } from './function-credentials.ts';
import { S3Error } from './s3-error.ts';

/** What a request gives the verifier: its method, raw path and query, and headers (names in lower case). */
export interface SignedRequest {
  method: string;
  /** The path as sent, still URL-encoded. */
  path: string;
  /** The query string as sent, without `?`. */
  querystring: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface VerifiedSignature {
  accessKeyId: string;
  via: 'header' | 'presigned-url';
  /** The payload hash the signature covers: a hex SHA-256, `UNSIGNED-PAYLOAD` or a `STREAMING-…` mode. */
  payloadHash: string;
  /** An S3 error for a valid signature whose time is past (expired URL, skewed clock): reported, then refused. */
  expired?: Error;
}

/** S3 accepts a header-signed request whose time is at most this far from its own clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;
/** The longest a presigned URL may be valid: seven days. */
const MAX_EXPIRES_SECONDS = 604_800;

const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** The SigV4 signing key of `secret` for a credential scope `<day>/<region>/<service>/aws4_request`. */
export function signingKey(secret: string, scope: string): Buffer {
  const [day = '', region = '', service = ''] = scope.split('/');
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
}

/** True when `given` (hex) is the HMAC-SHA256 of `stringToSign` under `key`, compared in constant time. */
export function signatureMatches(key: Buffer, stringToSign: string, given: string): boolean {
  const expected = hmac(key, stringToSign);
  const provided = Buffer.from(given, 'hex');
  return provided.length === expected.length && timingSafeEqual(provided, expected);
}

/** The secret of an access key, or S3's InvalidAccessKeyId. */
export function secretOf(accessKeyId: string): string {
  const secret = secretAccessKeyOf(accessKeyId);
  if (secret === undefined)
    throw new S3Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  return secret;
}

export const signatureDoesNotMatch = () =>
  new S3Error(
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  );

/** RFC 3986 encoding, as SigV4 canonicalizes names and values. */
const encode = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** The query's parameters, decoded, in the order sent. */
export function queryParameters(querystring: string): [string, string][] {
  if (querystring === '') return [];
  return querystring.split('&').map((pair) => {
    const at = pair.indexOf('=');
    return at < 0 ? [decode(pair), ''] : [decode(pair.slice(0, at)), decode(pair.slice(at + 1))];
  });
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

function canonicalRequest(
  request: SignedRequest,
  parameters: [string, string][],
  signedHeaders: string,
  payloadHash: string,
): string {
  const uri = request.path.split('/').map(decode).map(encode).join('/');
  const query = parameters
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headers = signedHeaders
    .split(';')
    .map((name) => `${name}:${(single(request.headers[name]) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  return `${request.method}\n${uri}\n${query}\n${headers}\n${signedHeaders}\n${payloadHash}`;
}

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** `20261127T151400Z` as a time, or NaN. */
function amzDate(text: string | undefined): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? '');
  return match ? Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!, +match[5]!, +match[6]!) : NaN;
}

function verify(
  request: SignedRequest,
  parts: { credential: string; signedHeaders: string; signature: string; date: string; payloadHash: string },
  parameters: [string, string][],
): { accessKeyId: string } {
  const [accessKeyId = '', ...scopeParts] = parts.credential.split('/');
  const secret = secretOf(accessKeyId);
  const scope = scopeParts.join('/');
  const stringToSign = `AWS4-HMAC-SHA256\n${parts.date}\n${scope}\n${sha256Hex(canonicalRequest(request, parameters, parts.signedHeaders, parts.payloadHash))}`;
  if (
    !/^[0-9a-f]{64}$/.test(parts.signature) ||
    !signatureMatches(signingKey(secret, scope), stringToSign, parts.signature)
  )
    throw signatureDoesNotMatch();
  return { accessKeyId };
}

function verifyHeader(request: SignedRequest, authorization: string, now: number): VerifiedSignature {
  const fields = new Map(
    authorization
      .slice('AWS4-HMAC-SHA256'.length)
      .split(',')
      .map((field) => field.trim().split('=') as [string, string | undefined]),
  );
  const [credential, signedHeaders, signature] = ['Credential', 'SignedHeaders', 'Signature'].map((name) =>
    fields.get(name),
  );
  if (!credential || !signedHeaders || !signature)
    throw new S3Error(
      'AuthorizationHeaderMalformed',
      'The authorization header is malformed; the authorization header requires three components: Credential, SignedHeaders, and Signature.',
    );
  const payloadHash = single(request.headers['x-amz-content-sha256']);
  if (payloadHash === undefined)
    throw new S3Error('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  const date = single(request.headers['x-amz-date']) ?? '';
  const time = amzDate(date) || Date.parse(single(request.headers.date) ?? '');
  if (Number.isNaN(time))
    throw new S3Error('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  const { accessKeyId } = verify(
    request,
    { credential, signedHeaders, signature, date, payloadHash },
    queryParameters(request.querystring),
  );
  const skewed = Math.abs(now - time) > MAX_SKEW_MS;
  return {
    accessKeyId,
    via: 'header',
    payloadHash,
    ...(skewed
      ? {
          expired: new S3Error(
            'RequestTimeTooSkewed',
            'The difference between the request time and the current time is too large.',
          ),
        }
      : {}),
  };
}

function verifyQuery(request: SignedRequest, now: number): VerifiedSignature {
  const all = queryParameters(request.querystring);
  const get = (name: string) => all.find(([key]) => key === name)?.[1];
  if (get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256')
    throw new S3Error('AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  const [credential, signedHeaders, signature, date, expires] = [
    'X-Amz-Credential',
    'X-Amz-SignedHeaders',
    'X-Amz-Signature',
    'X-Amz-Date',
    'X-Amz-Expires',
  ].map(get);
  if (!credential || !signedHeaders || !signature || !date || !expires)
    throw new S3Error(
      'AuthorizationQueryParametersError',
      'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
    );
  const time = amzDate(date);
  if (Number.isNaN(time))
    throw new S3Error(
      'AuthorizationQueryParametersError',
      "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"",
    );
  if (!/^\d+$/.test(expires) || Number(expires) > MAX_EXPIRES_SECONDS)
    throw new S3Error(
      'AuthorizationQueryParametersError',
      'X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must be less than 604800 seconds',
    );
  // A presigned URL's payload is never hashed: S3 signs it as UNSIGNED-PAYLOAD unless the URL names a hash.
  const payloadHash = get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const { accessKeyId } = verify(
    request,
    { credential, signedHeaders, signature, date, payloadHash },
    all.filter(([name]) => name !== 'X-Amz-Signature'),
  );
  const expired = now > time + Number(expires) * 1000;
  return {
    accessKeyId,
    via: 'presigned-url',
    payloadHash,
    ...(expired ? { expired: new S3Error('AccessDenied', 'Request has expired') } : {}),
  };
}

/**
 * The verified signer of a request signed in its Authorization header or its query, or undefined for a
 * request signed neither way; throws S3's error for a malformed, unknown or wrong signature.
 */
export function verifySignature(request: SignedRequest, now = Date.now()): VerifiedSignature | undefined {
  const authorization = single(request.headers.authorization);
  const presigned = /(^|&)X-Amz-Signature=/.test(request.querystring);
  if (authorization !== undefined && presigned)
    throw new S3Error(
      'InvalidArgument',
      'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
    );
  if (authorization !== undefined) {
    if (!authorization.startsWith('AWS4-HMAC-SHA256 '))
      throw new S3Error('InvalidArgument', 'Unsupported Authorization Type');
    return verifyHeader(request, authorization, now);
  }
  return presigned ? verifyQuery(request, now) : undefined;
}
