/**
 * The local S3 refuses what S3 refuses (lib/local/s3-front.ts), with S3's status, code and XML, and stores
 * nothing for a refused request: signatures in the header and in presigned URLs (expiry included),
 * presigned POST policies, Content-MD5 and x-amz-checksum-*, and the body's x-amz-content-sha256. Shown
 * through the real SDK (its signer, presigner and POST presigner) and through raw HTTP; the recorder
 * hook's reports are checked for a header-signed call, a presigned URL and a POST.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
  CreateBucketCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { FinalizeHandler, FinalizeHandlerArguments, MetadataBearer } from '@smithy/types';
import { createPresignedPost, type PresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { functionCredentials, TOOL_CREDENTIALS } from '../../lib/local/function-credentials.ts';
import type { S3Call } from '../../lib/local/s3-calls.ts';
import { LOCAL_AWS_ENV, startLocalStorage, type LocalStorage } from '../../lib/local/storage.ts';

const BUCKET = 'refusals';
let storage: LocalStorage;
const calls: S3Call[] = [];
const clients: S3Client[] = [];

/** An SDK client of the local S3 with `credentials` (the tools' by default); one attempt, so a refusal is seen as it is. */
function clientOf(options: Partial<S3ClientConfig> = {}): S3Client {
  const client = new S3Client({
    endpoint: storage.s3Endpoint,
    forcePathStyle: true,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: TOOL_CREDENTIALS,
    maxAttempts: 1,
    ...options,
  });
  clients.push(client);
  return client;
}
let s3: S3Client;

beforeAll(async () => {
  storage = await startLocalStorage({ onS3Request: (call) => calls.push(call) });
  s3 = clientOf();
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  await s3.send(
    new PutBucketCorsCommand({
      Bucket: BUCKET,
      CORSConfiguration: {
        CORSRules: [{ AllowedOrigins: ['*'], AllowedMethods: ['PUT', 'POST'], AllowedHeaders: ['*'] }],
      },
    }),
  );
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.destroy();
  await storage?.close();
});

beforeEach(() => {
  calls.length = 0;
});

/** The refusal an SDK call ended with: S3's code (the error's name), status and message. */
const refusalOf = (sending: Promise<unknown>) =>
  sending.then(
    () => 'stored',
    (error: { name: string; message: string; $metadata?: { httpStatusCode?: number } }) => ({
      code: error.name,
      status: error.$metadata?.httpStatusCode,
      message: error.message,
    }),
  );

/** S3's XML error answer read from a raw response: its status, code and message. */
async function xmlRefusal(response: Response) {
  const xml = await response.text();
  expect(response.headers.get('content-type')).toMatch(/xml/);
  expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\s*<Error>/);
  return {
    status: response.status,
    code: /<Code>([^<]*)<\/Code>/.exec(xml)?.[1],
    message: /<Message>([^<]*)<\/Message>/.exec(xml)?.[1]?.replace(/&quot;/g, '"'),
  };
}

/** True when the object exists (HEAD with the tools' key). */
const stored = (key: string) =>
  s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(
    () => true,
    (error: { name: string }) => {
      if (error.name === 'NotFound') return false;
      throw error;
    },
  );

/** Sends the request with the body replaced after signing: headers computed for one body, another on the wire. */
function bodySwappedAfterSigning(client: S3Client, sentBody: Buffer): S3Client {
  client.middlewareStack.addRelativeTo(
    (next: FinalizeHandler<object, MetadataBearer>) => async (args: FinalizeHandlerArguments<object>) => {
      const request = args.request as { body: unknown; headers: Record<string, string> };
      request.body = sentBody;
      request.headers['content-length'] = String(sentBody.length);
      delete request.headers['transfer-encoding'];
      return next(args);
    },
    { relation: 'after', toMiddleware: 'awsAuthMiddleware', name: 'swapBodyAfterSigning' },
  );
  return client;
}

describe('signatures', () => {
  it('refuses a header signed with a wrong secret: 403 SignatureDoesNotMatch (SDK)', async () => {
    const wrong = clientOf({
      credentials: { accessKeyId: TOOL_CREDENTIALS.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    expect(
      await refusalOf(wrong.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'sig/wrong', Body: 'x' }))),
    ).toMatchObject({ code: 'SignatureDoesNotMatch', status: 403 });
    expect(calls).toEqual([]);
    expect(await stored('sig/wrong')).toBe(false);
  });

  it('refuses an access key it does not know: 403 InvalidAccessKeyId (SDK)', async () => {
    const unknown = clientOf({ credentials: { accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'whatever' } });
    expect(
      await refusalOf(unknown.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'sig/unknown', Body: 'x' }))),
    ).toEqual({
      code: 'InvalidAccessKeyId',
      status: 403,
      message: 'The AWS Access Key Id you provided does not exist in our records.',
    });
    expect(await stored('sig/unknown')).toBe(false);
  });

  it("accepts a function's derived key and refuses a clock 20 minutes off: 403 RequestTimeTooSkewed (SDK)", async () => {
    const credentials = functionCredentials('create-basket');
    await clientOf({ credentials }).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'sig/fn', Body: 'x' }));
    const skewed = clientOf({ credentials, systemClockOffset: -20 * 60 * 1000 });
    expect(
      await refusalOf(skewed.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'sig/skewed', Body: 'x' }))),
    ).toMatchObject({
      code: 'RequestTimeTooSkewed',
      status: 403,
    });
    expect(await stored('sig/skewed')).toBe(false);
  });

  it('refuses an unsigned request: 403 AccessDenied (raw HTTP); a CORS preflight is answered unsigned', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'sig/private', Body: 'secret' }));
    expect(await xmlRefusal(await fetch(`${storage.s3Endpoint}/${BUCKET}/sig/private`))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Access Denied',
    });
    const put = await fetch(`${storage.s3Endpoint}/${BUCKET}/sig/anonymous`, { method: 'PUT', body: 'x' });
    expect((await xmlRefusal(put)).code).toBe('AccessDenied');
    expect(await stored('sig/anonymous')).toBe(false);
    const preflight = await fetch(`${storage.s3Endpoint}/${BUCKET}/sig/anonymous`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://127.0.0.1:3001', 'Access-Control-Request-Method': 'PUT' },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('refuses a presigned URL whose signature, path or expiry was changed: 403 SignatureDoesNotMatch (raw HTTP)', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'url/a', Body: 'a' }));
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: BUCKET, Key: 'url/a' }), { expiresIn: 60 });
    expect(await (await fetch(url)).text()).toBe('a');
    const signature = /X-Amz-Signature=([0-9a-f]+)/.exec(url)?.[1] as string;
    const tampered = [
      url.replace(signature, `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`),
      url.replace('/url/a?', '/url/b?'),
      url.replace('X-Amz-Expires=60', 'X-Amz-Expires=600'),
    ];
    for (const changed of tampered)
      expect(await xmlRefusal(await fetch(changed))).toEqual({
        status: 403,
        code: 'SignatureDoesNotMatch',
        message:
          'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      });
  });

  it('refuses an expired presigned URL: 403 AccessDenied "Request has expired" (raw HTTP, presigned by the SDK)', async () => {
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: BUCKET, Key: 'url/expired' }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 5 * 60 * 1000),
    });
    expect(await xmlRefusal(await fetch(url, { method: 'PUT', body: 'late' }))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Request has expired',
    });
    expect(await stored('url/expired')).toBe(false);
  });
});

describe('body digests', () => {
  const body = Buffer.from('the bytes the client meant to send');
  const altered = Buffer.from('the bytes that arrived instead!!!!');
  const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('base64');

  it("refuses a PutObject whose Content-MD5 is not the body's: 400 BadDigest (SDK)", async () => {
    const sending = s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'digest/md5', Body: body, ContentMD5: md5(altered) }),
    );
    expect(await refusalOf(sending)).toEqual({
      code: 'BadDigest',
      status: 400,
      message: 'The Content-MD5 you specified did not match what we received.',
    });
    expect(await stored('digest/md5')).toBe(false);
    expect(
      await refusalOf(
        s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'digest/md5', Body: body, ContentMD5: 'nope' })),
      ),
    ).toMatchObject({ code: 'InvalidDigest', status: 400 });
  });

  it('refuses bytes changed after the SDK computed their CRC32 and SHA-256: 400 BadDigest, XAmzContentSHA256Mismatch (SDK)', async () => {
    // Signed payload (hex x-amz-content-sha256): the SHA-256 is checked first by neither; both mismatch, S3 names one.
    const signedPayload = bodySwappedAfterSigning(clientOf(), altered);
    const refusal = await refusalOf(
      signedPayload.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'digest/swapped', Body: body })),
    );
    expect(['BadDigest', 'XAmzContentSHA256Mismatch']).toContain((refusal as { code: string }).code);
    expect(refusal).toMatchObject({ status: 400 });
    expect(await stored('digest/swapped')).toBe(false);
  });

  it('refuses a body that is not the x-amz-content-sha256 signed: 400 XAmzContentSHA256Mismatch (SDK, no checksum)', async () => {
    const signedPayload = bodySwappedAfterSigning(clientOf({ requestChecksumCalculation: 'WHEN_REQUIRED' }), altered);
    expect(
      await refusalOf(signedPayload.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'digest/sha256', Body: body }))),
    ).toEqual({
      code: 'XAmzContentSHA256Mismatch',
      status: 400,
      message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
    });
    expect(await stored('digest/sha256')).toBe(false);
  });

  it('refuses a wrong x-amz-checksum-crc32 or -sha256 on a presigned PUT: 400 BadDigest (raw HTTP)', async () => {
    const presigner = clientOf({ requestChecksumCalculation: 'WHEN_REQUIRED' });
    const url = await getSignedUrl(presigner, new PutObjectCommand({ Bucket: BUCKET, Key: 'digest/raw' }), {
      expiresIn: 60,
    });
    const wrong = [
      ['x-amz-checksum-crc32', 'AAAAAA==', 'The CRC32 you specified did not match the calculated checksum.'],
      [
        'x-amz-checksum-sha256',
        createHash('sha256').update(altered).digest('base64'),
        'The SHA256 you specified did not match the calculated checksum.',
      ],
      ['content-md5', md5(altered), 'The Content-MD5 you specified did not match what we received.'],
    ];
    for (const [name, value, message] of wrong) {
      const response = await fetch(url, { method: 'PUT', body, headers: { [name as string]: value as string } });
      expect(await xmlRefusal(response)).toEqual({ status: 400, code: 'BadDigest', message });
    }
    expect(await stored('digest/raw')).toBe(false);
    const right = await fetch(url, { method: 'PUT', body, headers: { 'content-md5': md5(body) } });
    expect(right.status).toBe(200);
    expect(await stored('digest/raw')).toBe(true);
  });

  it('refuses a presigned PUT whose signed CRC32 is of an empty body, as S3 does (the SDK default when presigning)', async () => {
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: BUCKET, Key: 'digest/empty-crc' }), {
      expiresIn: 60,
    });
    expect(url).toContain('x-amz-checksum-crc32=AAAAAA%3D%3D');
    expect((await xmlRefusal(await fetch(url, { method: 'PUT', body }))).code).toBe('BadDigest');
    expect(await stored('digest/empty-crc')).toBe(false);
  });
});

describe('aws-chunked bodies (what the SDK sends for a stream)', () => {
  const bytes = Buffer.from('streamed bytes of a known length');
  const streamed = () => Readable.from([bytes.subarray(0, 10), bytes.subarray(10)]);

  it('decodes the chunks, checks the CRC32 trailer and stores the bytes without the aws-chunked encoding', async () => {
    const seen: Record<string, string>[] = [];
    const client = clientOf();
    client.middlewareStack.addRelativeTo(
      (next: FinalizeHandler<object, MetadataBearer>) => async (args: FinalizeHandlerArguments<object>) => {
        seen.push({ ...(args.request as { headers: Record<string, string> }).headers });
        return next(args);
      },
      { relation: 'after', toMiddleware: 'awsAuthMiddleware', name: 'watchHeaders' },
    );
    await client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'chunked/ok', Body: streamed(), ContentLength: bytes.length }),
    );
    expect(seen[0]).toMatchObject({
      'content-encoding': 'aws-chunked',
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      'x-amz-trailer': 'x-amz-checksum-crc32',
    });
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'chunked/ok' }));
    expect(Buffer.from(await object.Body!.transformToByteArray())).toEqual(bytes);
    expect(object.ContentEncoding).toBeUndefined();
  });

  it('refuses a trailer checksum the bytes do not match: 400 XAmzContentChecksumMismatch, nothing stored', async () => {
    const altered = Buffer.from('streamed bytes of another sort!!');
    const wire = Buffer.from(
      `${altered.length.toString(16)}\r\n${altered.toString('utf8')}\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n`,
    );
    const client = bodySwappedAfterSigning(clientOf(), wire);
    expect(
      await refusalOf(
        client.send(
          new PutObjectCommand({ Bucket: BUCKET, Key: 'chunked/bad', Body: streamed(), ContentLength: bytes.length }),
        ),
      ),
    ).toEqual({
      code: 'XAmzContentChecksumMismatch',
      status: 400,
      message: "The provided 'x-amz-checksum' header does not match what was computed.",
    });
    expect(await stored('chunked/bad')).toBe(false);
  });
});

describe('presigned POST policies', () => {
  /** A policy as the service writes it: the key pinned, 1..10 bytes. */
  const presign = (key: string, options: { expires?: number; maxBytes?: number } = {}) =>
    createPresignedPost(s3, {
      Bucket: BUCKET,
      Key: key,
      Conditions: [['content-length-range', 1, options.maxBytes ?? 10]],
      Expires: options.expires ?? 60,
    });

  /** The form a browser sends: the fields (some replaced), then the file. */
  function send(post: PresignedPost, file: Buffer, fields: Record<string, string> = {}) {
    const form = new FormData();
    for (const [name, value] of Object.entries({ ...post.fields, ...fields })) form.append(name, value);
    form.append('file', new Blob([file]), 'photo.jpg');
    return fetch(post.url, { method: 'POST', body: form });
  }

  it('stores a file within the policy: 204 (the SDK-presigned form, raw HTTP)', async () => {
    const post = await presign('post/ok');
    const response = await send(post, Buffer.from('ten bytes!'));
    expect(response.status).toBe(204);
    expect(response.headers.get('etag')).toBe(`"${createHash('md5').update('ten bytes!').digest('hex')}"`);
    expect(await stored('post/ok')).toBe(true);
  });

  it('refuses 100 bytes where the policy allows 10: 400 EntityTooLarge; and an empty file: 400 EntityTooSmall', async () => {
    const post = await presign('post/large');
    expect(await xmlRefusal(await send(post, Buffer.alloc(100, 1)))).toEqual({
      status: 400,
      code: 'EntityTooLarge',
      message: 'Your proposed upload exceeds the maximum allowed size',
    });
    expect(await xmlRefusal(await send(post, Buffer.alloc(0)))).toEqual({
      status: 400,
      code: 'EntityTooSmall',
      message: 'Your proposed upload is smaller than the minimum allowed size',
    });
    expect(await stored('post/large')).toBe(false);
  });

  it('refuses a form for another key than the policy pins: 403 AccessDenied, the failed condition named', async () => {
    const post = await presign('post/pinned');
    expect(await xmlRefusal(await send(post, Buffer.from('hi'), { key: 'post/elsewhere' }))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Invalid according to Policy: Policy Condition failed: ["eq", "$key", "post/pinned"]',
    });
    expect(await stored('post/elsewhere')).toBe(false);
    expect(await stored('post/pinned')).toBe(false);
  });

  it('refuses a field no condition names: 403 AccessDenied "Extra input fields"', async () => {
    const post = await presign('post/extra');
    expect(await xmlRefusal(await send(post, Buffer.from('hi'), { 'x-amz-meta-owner': 'mallory' }))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Invalid according to Policy: Extra input fields: x-amz-meta-owner',
    });
    expect(await stored('post/extra')).toBe(false);
  });

  it('refuses a tampered signature or a policy rewritten to allow more: 403 SignatureDoesNotMatch', async () => {
    const post = await presign('post/tampered');
    const signature = post.fields['X-Amz-Signature'] as string;
    const policy = JSON.parse(Buffer.from(post.fields.Policy as string, 'base64').toString()) as {
      conditions: unknown[];
    };
    const widened = {
      ...policy,
      conditions: policy.conditions.map((condition) =>
        Array.isArray(condition) && condition[0] === 'content-length-range'
          ? ['content-length-range', 1, 1000]
          : condition,
      ),
    };
    const tamperings: Record<string, string>[] = [
      { 'X-Amz-Signature': `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}` },
      { Policy: Buffer.from(JSON.stringify(widened)).toString('base64') },
    ];
    for (const fields of tamperings)
      expect(await xmlRefusal(await send(post, Buffer.alloc(100, 2), fields))).toMatchObject({
        status: 403,
        code: 'SignatureDoesNotMatch',
      });
    expect(await stored('post/tampered')).toBe(false);
  });

  it('refuses a form after its policy expired: 403 AccessDenied "Policy expired."', async () => {
    const post = await presign('post/expired', { expires: -1 });
    expect(await xmlRefusal(await send(post, Buffer.from('hi')))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Invalid according to Policy: Policy expired.',
    });
    expect(await stored('post/expired')).toBe(false);
  });
});

describe('the recorder hook', () => {
  it('reports a header-signed call, a presigned URL and a POST with the action S3 authorizes and the resource', async () => {
    const credentials = functionCredentials('push-library-images');
    const fn = clientOf({ credentials });
    await fn.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'rec/a', Body: 'a' }));
    await fn.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'rec/' }));
    const url = await getSignedUrl(fn, new GetObjectCommand({ Bucket: BUCKET, Key: 'rec/a' }), { expiresIn: 60 });
    await (await fetch(url)).text();
    const post = await createPresignedPost(fn, { Bucket: BUCKET, Key: 'rec/b', Expires: 60 });
    const form = new FormData();
    for (const [name, value] of Object.entries(post.fields)) form.append(name, value);
    form.append('file', new Blob(['b']), 'b.txt');
    expect((await fetch(post.url, { method: 'POST', body: form })).status).toBe(204);

    const accessKeyId = credentials.accessKeyId;
    expect(calls).toEqual([
      { accessKeyId, action: 's3:PutObject', resource: `arn:aws:s3:::${BUCKET}/rec/a`, via: 'header' },
      {
        accessKeyId,
        action: 's3:ListBucket',
        resource: `arn:aws:s3:::${BUCKET}`,
        via: 'header',
        context: { 's3:prefix': 'rec/' },
      },
      { accessKeyId, action: 's3:GetObject', resource: `arn:aws:s3:::${BUCKET}/rec/a`, via: 'presigned-url' },
      { accessKeyId, action: 's3:PutObject', resource: `arn:aws:s3:::${BUCKET}/rec/b`, via: 'post-policy' },
    ]);
  });

  it('reports a call refused after its signature verified, with the refusal', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: BUCKET, Key: 'rec/a' }), {
      expiresIn: 1,
      signingDate: new Date(Date.now() - 60_000),
    });
    expect((await fetch(url)).status).toBe(403);
    expect(calls).toEqual([
      {
        accessKeyId: TOOL_CREDENTIALS.accessKeyId,
        action: 's3:GetObject',
        resource: `arn:aws:s3:::${BUCKET}/rec/a`,
        via: 'presigned-url',
        refused: 'AccessDenied',
      },
    ]);
  });
});
