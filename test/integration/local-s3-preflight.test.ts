/**
 * CORS preflights in the local S3 (lib/local/s3-preflight.ts), over raw HTTP as a browser sends them: the
 * answer comes from the bucket's CORS rules alone, the same with a presigned part URL's query (a function's
 * access key, a signature) as without one; an origin, method or header no rule allows is refused 403, as S3
 * refuses it. The part PUT that follows an allowed preflight carries the CORS headers the page needs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  PutBucketCorsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { functionCredentials, TOOL_CREDENTIALS } from '../../lib/local/function-credentials.ts';
import { LOCAL_AWS_ENV, startLocalStorage, type LocalStorage } from '../../lib/local/storage.ts';

const BUCKET = 'preflights';
const BARE_BUCKET = 'preflights-without-cors';
const SHOP = 'http://shop.example';
const KEY = 'library/photo';
let storage: LocalStorage;
const clients: S3Client[] = [];
/** A presigned UploadPart URL, signed with the key of the function that signs parts in the service. */
let partUrl: string;

const clientOf = (credentials = TOOL_CREDENTIALS) => {
  const client = new S3Client({
    endpoint: storage.s3Endpoint,
    forcePathStyle: true,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials,
    maxAttempts: 1,
    // As the service signs part URLs: no checksum of an empty body in the query.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  clients.push(client);
  return client;
};

beforeAll(async () => {
  storage = await startLocalStorage({});
  const s3 = clientOf();
  for (const bucket of [BUCKET, BARE_BUCKET]) await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(
    new PutBucketCorsCommand({
      Bucket: BUCKET,
      CORSConfiguration: {
        CORSRules: [
          {
            AllowedOrigins: [SHOP],
            AllowedMethods: ['PUT'],
            AllowedHeaders: ['content-type', 'x-amz-*'],
            ExposeHeaders: ['ETag'],
            MaxAgeSeconds: 600,
          },
          { AllowedOrigins: ['*'], AllowedMethods: ['GET'] },
        ],
      },
    }),
  );
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: KEY }));
  partUrl = await getSignedUrl(
    clientOf(functionCredentials('sign-multipart-parts')),
    new UploadPartCommand({ Bucket: BUCKET, Key: KEY, UploadId, PartNumber: 1 }),
    { expiresIn: 600 },
  );
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.destroy();
  await storage?.close();
});

const objectUrl = (bucket = BUCKET) => `${storage.s3Endpoint}/${bucket}/${KEY}`;

const preflight = (url: string, headers: Record<string, string>) =>
  fetch(url, { method: 'OPTIONS', headers: { 'Access-Control-Request-Method': 'PUT', ...headers } });

/** S3's XML error of a raw answer: status, code and message. */
async function refusal(response: Response) {
  const xml = await response.text();
  return {
    status: response.status,
    code: /<Code>([^<]*)<\/Code>/.exec(xml)?.[1],
    message: /<Message>([^<]*)<\/Message>/.exec(xml)?.[1],
  };
}

const NOT_ALLOWED = {
  status: 403,
  code: 'AccessForbidden',
  message: expect.stringMatching(/^CORSResponse: This CORS request is not allowed\./),
};

describe('a preflight is answered from the bucket CORS rules, whatever its query', () => {
  it.each([
    ['without a query', () => objectUrl()],
    ["with a presigned part URL's query (a function's key)", () => partUrl],
    [
      'with a query naming an unknown key and a wrong signature',
      () =>
        `${partUrl.replace(/X-Amz-Credential=[^&]*/, 'X-Amz-Credential=NOBODY%2F20260101%2Fus-east-1%2Fs3%2Faws4_request').replace(/X-Amz-Signature=[0-9a-f]+/, `X-Amz-Signature=${'0'.repeat(64)}`)}`,
    ],
  ])('allows the rule origin, method and headers %s: 200 with the rule CORS headers', async (_, url) => {
    const answer = await preflight(url(), { Origin: SHOP, 'Access-Control-Request-Headers': 'Content-Type' });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('');
    expect(Object.fromEntries([...answer.headers].filter(([name]) => name.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': SHOP,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'PUT',
      'access-control-allow-headers': 'content-type',
      'access-control-expose-headers': 'ETag',
      'access-control-max-age': '600',
    });
    expect(answer.headers.get('vary')).toBe('Origin, Access-Control-Request-Headers, Access-Control-Request-Method');
  });

  it.each([
    ['without a query', () => objectUrl()],
    ["with a presigned part URL's query", () => partUrl],
  ])('refuses an origin, a method or a header no rule allows %s: 403 CORSResponse', async (_, url) => {
    expect(await refusal(await preflight(url(), { Origin: 'http://elsewhere.example' }))).toEqual(NOT_ALLOWED);
    expect(await refusal(await preflight(url(), { Origin: SHOP, 'Access-Control-Request-Method': 'DELETE' }))).toEqual(
      NOT_ALLOWED,
    );
    expect(
      await refusal(
        await preflight(url(), { Origin: SHOP, 'Access-Control-Request-Headers': 'content-type, x-other' }),
      ),
    ).toEqual(NOT_ALLOWED);
  });

  it('answers a rule for every origin with `*` and no credentials', async () => {
    const answer = await preflight(objectUrl(), {
      Origin: 'http://elsewhere.example',
      'Access-Control-Request-Method': 'GET',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    expect(answer.headers.get('access-control-allow-methods')).toBe('GET');
  });

  it('refuses a bucket without CORS rules (403) and a preflight without Origin or method (400)', async () => {
    expect(await refusal(await preflight(objectUrl(BARE_BUCKET), { Origin: SHOP }))).toEqual({
      status: 403,
      code: 'AccessForbidden',
      message: 'CORSResponse: CORS is not enabled for this bucket.',
    });
    expect(await refusal(await preflight(partUrl, {}))).toEqual({
      status: 400,
      code: 'BadRequest',
      message: 'Insufficient information. Origin request header needed.',
    });
    const withoutMethod = await fetch(partUrl, { method: 'OPTIONS', headers: { Origin: SHOP } });
    expect(await refusal(withoutMethod)).toEqual({
      status: 400,
      code: 'BadRequest',
      message: 'Invalid Access-Control-Request-Method: null',
    });
  });

  it('then stores the part PUT of the presigned URL, with the CORS headers that let the page read its ETag', async () => {
    const put = await fetch(partUrl, { method: 'PUT', headers: { Origin: SHOP }, body: 'part one' });
    expect([put.status, put.status === 200 ? '' : await put.text()]).toEqual([200, '']);
    expect(put.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(put.headers.get('access-control-expose-headers')).toBe('ETag');
    expect(put.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
  });
});
