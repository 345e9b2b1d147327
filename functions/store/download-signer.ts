/**
 * Presigned GETs of many objects of one bucket at once (GET /builder/{token} signs up to 100 in its first
 * answer), and presigned UploadPart PUTs of a resumable upload's parts (up to 100 per call). The endpoint is resolved once per call by the SDK's own rules (path or virtual-hosted style,
 * region, signing name); each URL is then signed here with Signature Version 4 in query form.
 *
 * Why not the SDK's S3RequestPresigner: it is generic (any method, headers, hoisting rules, SigV4a), and per
 * URL it clones the request twice, re-derives a cache key for the signing key with an extra HMAC and walks
 * a dozen async steps. In a fresh process that code is not compiled yet, so 100 URLs cost 15-18 ms of CPU
 * of a cold start (figure 3 in BENCHMARKS.md). A presigned GET or part PUT has one shape: the signature
 * covers the method, the path, the query and the host (and a part's Content-Length), the payload is
 * UNSIGNED-PAYLOAD, and the signing key depends only on the credentials, the day, the region and the
 * service (SigV4), so it is derived once and kept. test/unit/download-signer.test.ts checks the URLs are
 * byte for byte those of the SDK's getSignedUrl.
 */
import { createHash, createHmac } from 'node:crypto';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getEndpointFromInstructions } from '@smithy/core/endpoints';

/**
 * An original is answered as an attachment: `<img>` and apps show it as usual, but a browser sent to the URL
 * saves the file rather than rendering it, so no byte a client uploaded after the image header is ever
 * interpreted in the bucket's origin (docs/security.md, Stored images). A rendition is answered inline: every
 * byte of it was written by the service's encoder (renditions/render.ts), so a browser sent to it shows it.
 * S3 lets a presigned GET set this header and the content type, not X-Content-Type-Options or a CSP.
 */
type Disposition = 'attachment' | 'inline';

export interface Download {
  objectKey: string;
  /** Answered as the object's Content-Type (`response-content-type`). */
  contentType: string;
  /** Answered as its Content-Disposition (`response-content-disposition`). */
  disposition: Disposition;
}

interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** RFC 3986 encoding as SigV4 and S3 want it (unreserved characters kept, `!'()*` encoded too). */
const encode = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** The last signing key derived, with what it was derived from: one per day and region while the credentials last. */
let signingKey: { credentials: Credentials; scope: string; key: Buffer } | undefined;

function signingKeyFor(credentials: Credentials, scope: string): Buffer {
  if (signingKey?.credentials !== credentials || signingKey.scope !== scope) {
    const [day, region, service] = scope.split('/') as [string, string, string];
    const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), region), service), 'aws4_request');
    signingKey = { credentials, scope, key };
  }
  return signingKey.key;
}

/** `20261123T194838Z` and `20261123`, as SigV4 dates them. */
function signingDates(now: Date): { longDate: string; shortDate: string } {
  const longDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return { longDate, shortDate: longDate.slice(0, 8) };
}

/** One URL to sign: the method, the object, the operation's own query parameters (sorted by name), and a body's exact length to hold it to. */
interface UrlToSign {
  method: 'GET' | 'PUT';
  objectKey: string;
  query: readonly (readonly [string, string])[];
  contentLength?: number;
}

/**
 * Presigned URLs of `requests` on one bucket, valid `expiresIn` seconds, each signed over its path, its
 * query, the host and, when given, its Content-Length, with UNSIGNED-PAYLOAD: the form of getSignedUrl with
 * `signableHeaders: content-length` (S3 refuses a request whose headers differ: 403 SignatureDoesNotMatch).
 */
async function presign(
  s3: S3Client,
  bucket: string,
  requests: readonly UrlToSign[],
  expiresIn: number,
): Promise<string[]> {
  if (requests.length === 0) return [];
  // The bucket decides the endpoint (path or virtual-hosted style, region); the key does not.
  const endpoint = await getEndpointFromInstructions({ Bucket: bucket, Key: 'key' }, GetObjectCommand, s3.config);
  const authScheme = endpoint.properties?.authSchemes?.[0] as
    { signingName?: string; signingRegion?: string } | undefined;
  const region = authScheme?.signingRegion ?? (await s3.config.region());
  const credentials = (await s3.config.credentials()) as Credentials;
  const { protocol, host, pathname } = endpoint.url;
  const { longDate, shortDate } = signingDates(new Date());
  const scope = `${shortDate}/${region}/${authScheme?.signingName ?? 's3'}/aws4_request`;
  const key = signingKeyFor(credentials, scope);
  const base = pathname.replace(/\/+$/, '');
  // Every URL carries the same signing parameters; only the method, the path and the operation's own differ.
  const common: [string, string][] = [
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Content-Sha256', 'UNSIGNED-PAYLOAD'],
    ['X-Amz-Credential', `${credentials.accessKeyId}/${scope}`],
    ['X-Amz-Date', longDate],
    ['X-Amz-Expires', String(expiresIn)],
    ...(credentials.sessionToken ? [['X-Amz-Security-Token', credentials.sessionToken] as [string, string]] : []),
  ];
  const signedPrefix = common.map(([name, value]) => `${name}=${encode(value)}`).join('&');
  return requests.map(({ method, objectKey, query: own, contentLength }) => {
    const path = `${base}/${objectKey.split('/').map(encode).join('/')}`;
    const lengthHeader = contentLength === undefined ? '' : `content-length:${contentLength}\n`;
    const signedHeaders = contentLength === undefined ? 'host' : 'content-length;host';
    // Sorted by name (code point order): the X-Amz- parameters (upper-case X), then the operation's own.
    const query = `${signedPrefix}&X-Amz-SignedHeaders=${encode(signedHeaders)}&${own.map(([name, value]) => `${name}=${encode(value)}`).join('&')}`;
    const canonicalRequest = `${method}\n${path}\n${query}\n${lengthHeader}host:${host}\n\n${signedHeaders}\nUNSIGNED-PAYLOAD`;
    const stringToSign = `AWS4-HMAC-SHA256\n${longDate}\n${scope}\n${createHash('sha256').update(canonicalRequest).digest('hex')}`;
    const signature = createHmac('sha256', key).update(stringToSign).digest('hex');
    // X-Amz-Signature sorts between X-Amz-Security-Token and X-Amz-SignedHeaders, as the SDK writes it.
    const signed = query.replace('&X-Amz-SignedHeaders=', `&X-Amz-Signature=${signature}&X-Amz-SignedHeaders=`);
    return `${protocol}//${host}${path}?${signed}`;
  });
}

export const presignDownloads = (
  s3: S3Client,
  bucket: string,
  downloads: readonly Download[],
  expiresIn: number,
): Promise<string[]> =>
  presign(
    s3,
    bucket,
    downloads.map(({ objectKey, contentType, disposition }) => ({
      method: 'GET',
      objectKey,
      query: [
        ['response-content-disposition', disposition],
        ['response-content-type', contentType],
        ['x-id', 'GetObject'],
      ],
    })),
    expiresIn,
  );

/**
 * Presigned UploadPart PUTs of parts of one multipart upload (a browser PUTs each part's bytes to its URL),
 * each bound to the size its part must have: S3 refuses a body of any other length.
 */
export const presignUploadParts = (
  s3: S3Client,
  bucket: string,
  upload: { objectKey: string; uploadId: string },
  parts: readonly { partNumber: number; size: number }[],
  expiresIn: number,
): Promise<string[]> =>
  presign(
    s3,
    bucket,
    parts.map(({ partNumber, size }) => ({
      method: 'PUT',
      objectKey: upload.objectKey,
      query: [
        ['partNumber', String(partNumber)],
        ['uploadId', upload.uploadId],
        ['x-id', 'UploadPart'],
      ],
      contentLength: size,
    })),
    expiresIn,
  );
