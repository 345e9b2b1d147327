/**
 * Push, multi push, builder URLs and the large-file upload over HTTP against the local stack (API Gateway
 * front, authorizer, handlers, DynamoDB Local, s3rver), with real PNG/JPEG/GIF bytes.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startTestService, type TestService } from '../support/service.ts';
import { gif, jpeg, png, pngOfSize } from '../support/images.ts';
import { libraryObjectKeyOf, snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import { injectFault } from '../support/faults.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';
import type { DomainError } from '../../functions/shared/errors.ts';

const CHECKOUT_URL = 'http://127.0.0.1:3001';
const UPLOAD_MAX_BYTES = 256 * 1024;

let service: TestService;
let apiKey: string;
let s3Reader: S3Client;

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex').toUpperCase();
const hyphenate = (guid: string) =>
  `${guid.slice(0, 8)}-${guid.slice(8, 12)}-${guid.slice(12, 16)}-${guid.slice(16, 20)}-${guid.slice(20)}`;

interface Part {
  name: string;
  data: Buffer;
  filename?: string;
  type?: string;
}

/** A form as fetch (undici) writes it: quoted parameters, a filename, a content type per file. */
function form(parts: Part[]): FormData {
  const data = new FormData();
  for (const part of parts)
    data.append(
      part.name,
      new Blob([part.data], { type: part.type ?? 'application/octet-stream' }),
      part.filename ?? `${part.name}.bin`,
    );
  return data;
}

async function post(path: string, body: FormData | Buffer, headers: Record<string, string> = {}, key = apiKey) {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'X-SERVICE-API-Key': key, Accept: 'application/json', ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function storedBytes(objectKey: string): Promise<Buffer> {
  const result = await s3Reader.send(new GetObjectCommand({ Bucket: process.env.BUCKET_NAME, Key: objectKey }));
  return Buffer.from(
    await (result.Body as Readable & { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
  );
}

/** Library records and objects only: other concerns (API keys) may change between snapshots. */
const libraryChanges = async (before: Awaited<ReturnType<typeof snapshotStore>>) =>
  storeDiff(before, await snapshotStore(service), (key) => key.startsWith('APIKEY'));

beforeAll(async () => {
  service = await startTestService({ env: { CHECKOUT_URL, UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) } });
  apiKey = await service.apiKey('library-test', 'library');
  s3Reader = new S3Client({
    endpoint: service.storage.s3Endpoint,
    forcePathStyle: true,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
}, 60_000);

afterAll(async () => {
  s3Reader?.destroy();
  await service?.close();
});

describe('POST /library/push', () => {
  it('stores a PNG and answers its guid, sniffed type, size in bytes and uppercase MD5', async () => {
    const image = png(4, 3, 1);
    const { status, body } = await post(
      '/library/push',
      form([{ name: 'image', data: image, filename: 'photo.png', type: 'image/png' }]),
    );
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['LibraryItem', 'ProductBuilderUrl']);
    expect(Object.keys(body.LibraryItem).sort()).toEqual(['FileMd5', 'FileMimeType', 'FileSize', 'ItemGuid']);
    expect(body.LibraryItem).toMatchObject({ FileMimeType: 'image/png', FileSize: image.length, FileMd5: md5(image) });
    expect(body.LibraryItem.ItemGuid).toMatch(/^[0-9a-f]{32}$/);
    expect(body.ProductBuilderUrl).toMatch(new RegExp(`^${CHECKOUT_URL}/builder/[0-9a-f]{32}$`));
    expect(await storedBytes((await libraryObjectKeyOf(service.storage, body.LibraryItem.ItemGuid))!)).toEqual(image);
  });

  it('hashes the bytes itself when the ETag S3 answers is no MD5 (a KMS-encrypted bucket)', async () => {
    // Where S3 encrypts with KMS, the ETag of a PutObject is not the MD5 of the bytes and says so in ServerSideEncryption.
    const { s3 } = await import('../../functions/shared/clients/s3.ts');
    const asKms = 'answerAsKmsBucket';
    s3.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'PutObjectCommand')
          Object.assign(result.output as object, {
            ServerSideEncryption: 'aws:kms',
            ETag: '"0123456789abcdef0123456789abcdef"',
          });
        return result;
      },
      { step: 'initialize', name: asKms },
    );
    try {
      const image = png(5, 2, 9);
      const { status, body } = await post(
        '/library/push',
        form([{ name: 'image', data: image, filename: 'photo.png', type: 'image/png' }]),
      );
      expect(status).toBe(200);
      expect(body.LibraryItem).toMatchObject({ FileSize: image.length, FileMd5: md5(image) });
    } finally {
      s3.middlewareStack.remove(asKms);
    }
  });

  it('trusts the bytes, not the declared type: a JPEG sent as image/png is image/jpeg', async () => {
    const image = jpeg('lying client');
    const { status, body } = await post(
      '/library/push',
      form([{ name: 'image', data: image, filename: 'photo.png', type: 'image/png' }]),
    );
    expect(status).toBe(200);
    expect(body.LibraryItem).toMatchObject({ FileMimeType: 'image/jpeg', FileSize: image.length, FileMd5: md5(image) });
  });

  it('refuses bytes that are no image with 415, whatever the declared type, and stores nothing', async () => {
    const before = await snapshotStore(service);
    const { status, body } = await post(
      '/library/push',
      form([{ name: 'image', data: Buffer.from('%PDF-1.7 not an image'), filename: 'x.jpg', type: 'image/jpeg' }]),
    );
    expect(status).toBe(415);
    expect(body.Error.Code).toBe('UnsupportedMediaType');
    expect(body.Error.Failures).toEqual([{ Index: 0, Code: 'UnsupportedMediaType', Reason: expect.any(String) }]);
    expect(await libraryChanges(before)).toEqual([]);
  });

  it('answers 413 above the push cap, pointing to the large-file upload', async () => {
    const { status, body } = await post(
      '/library/push',
      form([{ name: 'image', data: pngOfSize(4 * 1024 * 1024 + 1), type: 'image/png' }]),
    );
    expect(status).toBe(413);
    expect(body.Error.Message).toContain('POST /library/upload');
  });

  it('wants exactly one part named "image"', async () => {
    const wrongName = await post('/library/push', form([{ name: 'file', data: png() }]));
    expect(wrongName.status).toBe(400);
    expect(wrongName.body.Error.Code).toBe('MissingImagePart');

    const before = await snapshotStore(service);
    const two = await post(
      '/library/push',
      form([
        { name: 'image', data: png() },
        { name: 'image', data: png(1, 1) },
      ]),
    );
    expect(two.status).toBe(400);
    expect(two.body.Error.Code).toBe('UnexpectedPart');
    expect(await libraryChanges(before)).toEqual([]);
  });

  it('refuses a body that is not multipart/form-data with 415', async () => {
    const { status } = await post('/library/push', png(), { 'Content-Type': 'image/png' });
    expect(status).toBe(415);
  });

  it('accepts the form .NET HttpClient writes: quoted boundary, bare parameters, filename*, a part without content type', async () => {
    const image = jpeg('dotnet');
    const boundary = 'f1c2e3d4-0000-4abc-9def-0123456789ab';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name=image; filename=photo.jpg; filename*=utf-8''ph%C3%B6to.jpg\r\n\r\n`,
      ),
      image,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const { status, body: answer } = await post('/library/push', body, {
      'Content-Type': `multipart/form-data; boundary="${boundary}"`,
    });
    expect(status).toBe(200);
    expect(answer.LibraryItem).toMatchObject({
      FileMimeType: 'image/jpeg',
      FileSize: image.length,
      FileMd5: md5(image),
    });
  });
});

describe('POST /library/multi/push', () => {
  it('answers one item per part in request order, whatever the field names', async () => {
    const images = [jpeg('first'), png(2, 2, 9), gif(), png(5, 1, 2)];
    const { status, body } = await post(
      '/library/multi/push',
      form(
        images.map((data, i) => ({
          name: ['front', 'back', 'x', 'front'][i] as string,
          data,
          type: 'application/octet-stream',
        })),
      ),
    );
    expect(status).toBe(200);
    expect(body.LibraryItems.map((item: any) => item.FileMd5)).toEqual(images.map(md5));
    expect(body.LibraryItems.map((item: any) => item.FileMimeType)).toEqual([
      'image/jpeg',
      'image/png',
      'image/gif',
      'image/png',
    ]);
    expect(new Set(body.LibraryItems.map((item: any) => item.ItemGuid)).size).toBe(4);
  });

  it('is all or nothing: lists every failed index and keeps no item or object', async () => {
    const before = await snapshotStore(service);
    const { status, body } = await post(
      '/library/multi/push',
      form([
        { name: 'a', data: png() },
        { name: 'b', data: Buffer.from('plain text') },
        { name: 'c', data: jpeg() },
        { name: 'd', data: Buffer.alloc(0) },
      ]),
    );
    expect(status).toBe(415);
    expect(body.Error.Failures.map((failure: any) => failure.Index)).toEqual([1, 3]);
    expect(body.Error.Failures[1].Reason).toContain('empty');
    expect(await libraryChanges(before)).toEqual([]);
  });

  it('takes at most 20 images per request', async () => {
    const before = await snapshotStore(service);
    const { status, body } = await post(
      '/library/multi/push',
      form(Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, data: png(1, 1, i) }))),
    );
    expect(status).toBe(400);
    expect(body.Error.Code).toBe('TooManyItems');
    expect(await libraryChanges(before)).toEqual([]);
  });

  // Two images: the intent's PutItem beside PutObject x2, then the commit (one TransactWriteItems). A failed
  // commit keeps no record, and its objects wait for the sweeper (test/integration/library-sweep.test.ts).
  it.each([
    ['S3 fails for the second image', 's3', { command: 'PutObjectCommand', kind: 's3-internal', skip: 1 }],
    ["the intent's write fails", 'dynamo', { command: 'PutItemCommand', kind: 'dynamo-conditional', times: 1 }],
  ] as const)('keeps no item or object when %s', async (_case, client, rule) => {
    const before = await snapshotStore(service);
    const fault = injectFault(
      client === 's3'
        ? (await import('../../functions/shared/clients/s3.ts')).s3
        : (await import('../../functions/shared/clients/dynamodb.ts')).dynamoDbClient,
      rule,
    );
    try {
      const { status } = await post(
        '/library/multi/push',
        form([
          { name: 'a', data: png(1, 1, 1) },
          { name: 'b', data: png(1, 1, 2) },
        ]),
      );
      expect(status).toBeGreaterThanOrEqual(500);
      expect(fault.injected).toBeGreaterThan(0);
    } finally {
      fault.remove();
    }
    expect(await libraryChanges(before)).toEqual([]);
  });
});

describe('ingestImages (the API pull builds on)', () => {
  const owner = () => ({ apiKeyId: 'ingest-test' });
  const delayed = (data: Buffer, ms: number) => () =>
    new Promise<Readable>((resolve) => setTimeout(() => resolve(Readable.from([data])), ms));

  it('answers in request order whatever order the sources finish in, at most `concurrency` open at once', async () => {
    const { ingestImages } = await import('../../functions/services/library-service.ts');
    const images = [png(1, 1, 20), png(1, 1, 21), png(1, 1, 22), png(1, 1, 23), png(1, 1, 24)];
    let open = 0;
    let peak = 0;
    const sources = images.map((data, index) => ({
      index,
      open: async () => {
        peak = Math.max(peak, ++open);
        const stream = await delayed(data, (images.length - index) * 5)();
        stream.on('end', () => open--);
        return stream;
      },
    }));
    const result = await ingestImages(owner(), sources, { concurrency: 2 });
    expect(result.items.map((item) => item.md5)).toEqual(images.map(md5));
    expect(peak).toBeLessThanOrEqual(2);
  });

  it('streams an image larger than one S3 part (multipart upload) with the right size and MD5', async () => {
    const { ingestImages } = await import('../../functions/services/library-service.ts');
    const big = Buffer.concat([png(1, 1, 40), Buffer.alloc(12 * 1024 * 1024, 7)]);
    const chunks = Array.from({ length: Math.ceil(big.length / 65536) }, (_, i) =>
      big.subarray(i * 65536, (i + 1) * 65536),
    );
    const result = await ingestImages(owner(), [{ index: 0, open: () => Readable.from(chunks) }], {
      maxBytes: 64 * 1024 * 1024,
    });
    expect(result.items[0]).toMatchObject({ mimeType: 'image/png', size: big.length, md5: md5(big) });
  });

  it('reports a source that fails with a DomainError by index and reason, and the byte cap as 413', async () => {
    const { ingestImages } = await import('../../functions/services/library-service.ts');
    const { badRequest } = await import('../../functions/shared/errors.ts');
    const { statusOf } = await import('../../functions/http/errors.ts');
    const before = await snapshotStore(service);
    const failing = async () => {
      throw badRequest('FetchFailed', 'http://127.0.0.1:9/x.png: connection refused');
    };
    const error: DomainError & { details: { Failures: unknown[] } } = await ingestImages(
      owner(),
      [
        { index: 0, open: () => Readable.from([png(1, 1, 30)]) },
        { index: 1, open: failing },
        { index: 2, open: () => Readable.from([pngOfSize(2000)]) },
      ],
      { maxBytes: 1000 },
    ).then(
      () => expect.fail('ingest should fail'),
      (caught: unknown) => caught as DomainError & { details: { Failures: unknown[] } },
    );
    expect(statusOf(error)).toBe(400);
    expect(error.details.Failures).toEqual([
      { Index: 1, Code: 'FetchFailed', Reason: 'http://127.0.0.1:9/x.png: connection refused' },
      { Index: 2, Code: 'PayloadTooLarge', Reason: expect.stringContaining('over 1000 bytes') },
    ]);
    expect(await libraryChanges(before)).toEqual([]);
  });
});

describe('anonymous users and product builder URLs', () => {
  const pushOne = async (data: Buffer, key = apiKey) =>
    (await post('/library/push', form([{ name: 'image', data, type: 'image/png' }]), {}, key)).body;

  it('each push creates an anonymous user owning exactly its items; the URL token names them', async () => {
    const { getBuilderLink } = await import('../../functions/store/library-store.ts');
    const { body } = await post(
      '/library/multi/push',
      form([
        { name: 'a', data: png(1, 1, 5) },
        { name: 'b', data: jpeg('t') },
      ]),
    );
    const token = (body.ProductBuilderUrl as string).split('/').pop() as string;
    const link = await getBuilderLink(token);
    expect(link?.itemGuids).toEqual(body.LibraryItems.map((item: any) => item.ItemGuid));
    expect(link?.anonymousUserIds).toHaveLength(1);

    const other = await pushOne(png(1, 1, 6));
    const otherLink = await getBuilderLink((other.ProductBuilderUrl as string).split('/').pop() as string);
    expect(otherLink?.anonymousUserIds[0]).not.toBe(link?.anonymousUserIds[0]);
  });

  it('POST /library/<guid>/builder answers a new URL for one item, hyphenated or not', async () => {
    const pushed = await pushOne(png(1, 1, 7));
    const guid = pushed.LibraryItem.ItemGuid as string;
    for (const form of [guid, hyphenate(guid), hyphenate(guid).toUpperCase()]) {
      const { status, body } = await post(`/library/${form}/builder`, Buffer.alloc(0));
      expect(status).toBe(200);
      expect(body.ProductBuilderUrl).toMatch(new RegExp(`^${CHECKOUT_URL}/builder/[0-9a-f]{32}$`));
      expect(body.ProductBuilderUrl).not.toBe(pushed.ProductBuilderUrl);
    }
  });

  it('POST /library/builder takes hyphenated Guids of several pushes and refers to exactly those', async () => {
    const { getBuilderLink } = await import('../../functions/store/library-store.ts');
    const first = await pushOne(png(1, 1, 8));
    const second = await pushOne(png(1, 1, 9));
    const guids = [first.LibraryItem.ItemGuid, second.LibraryItem.ItemGuid] as string[];
    const response = await fetch(`${service.url}/library/builder`, {
      method: 'POST',
      headers: { 'X-SERVICE-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ Guids: guids.map(hyphenate) }),
    });
    expect(response.status).toBe(200);
    const { ProductBuilderUrl } = (await response.json()) as { ProductBuilderUrl: string };
    const link = await getBuilderLink(ProductBuilderUrl.split('/').pop() as string);
    expect(link?.itemGuids).toEqual(guids);
    expect(link?.anonymousUserIds).toHaveLength(2);
  });

  it('answers 404 for unknown items and for items of another API key', async () => {
    const otherKey = await service.apiKey('other-app', 'library');
    const foreign = await pushOne(png(1, 1, 10), otherKey);
    const mine = await pushOne(png(1, 1, 11));
    const unknown = await post(`/library/${hyphenate('0'.repeat(32))}/builder`, Buffer.alloc(0));
    expect(unknown.status).toBe(404);
    const foreignOne = await post(`/library/${foreign.LibraryItem.ItemGuid}/builder`, Buffer.alloc(0));
    expect(foreignOne.status).toBe(404);
    const mixed = await fetch(`${service.url}/library/builder`, {
      method: 'POST',
      headers: { 'X-SERVICE-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ Guids: [mine.LibraryItem.ItemGuid, foreign.LibraryItem.ItemGuid] }),
    });
    expect(mixed.status).toBe(404);
    expect(((await mixed.json()) as any).Error.Message).toContain(foreign.LibraryItem.ItemGuid);
  });

  it('refuses malformed guids with 400', async () => {
    const response = await fetch(`${service.url}/library/builder`, {
      method: 'POST',
      headers: { 'X-SERVICE-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ Guids: ['not-a-guid'] }),
    });
    expect(response.status).toBe(400);
  });
});

describe('large-file upload', () => {
  async function createUpload() {
    const { status, body } = await post('/library/upload', Buffer.alloc(0));
    expect(status).toBe(200);
    return body as {
      ItemGuid: string;
      Upload: { Url: string; Method: 'POST'; Fields: Record<string, string> };
      MaxBytes: number;
    };
  }

  /** What a browser form or `curl -F` sends to the presigned POST: every field, then the file. */
  async function upload(ticket: Awaited<ReturnType<typeof createUpload>>, data: Buffer) {
    const body = new FormData();
    for (const [name, value] of Object.entries(ticket.Upload.Fields)) body.append(name, value);
    body.append('file', new Blob([data]), 'big.png');
    const response = await fetch(ticket.Upload.Url, { method: 'POST', body });
    expect(response.status).toBeLessThan(300);
  }

  it('stores an image above the push cap through a presigned POST and answers like push; completing again answers the same', async () => {
    const ticket = await createUpload();
    expect(ticket.MaxBytes).toBe(UPLOAD_MAX_BYTES);
    expect(ticket.Upload.Fields.key).toBe(`uploads/${ticket.ItemGuid}`);
    expect(
      JSON.parse(Buffer.from(ticket.Upload.Fields.Policy as string, 'base64').toString()).conditions,
    ).toContainEqual(['content-length-range', 1, UPLOAD_MAX_BYTES]);
    const image = pngOfSize(200 * 1024);
    await upload(ticket, image);

    const first = await post(`/library/upload/${hyphenate(ticket.ItemGuid)}/complete`, Buffer.alloc(0));
    expect(first.status).toBe(200);
    expect(first.body.LibraryItem).toEqual({
      ItemGuid: ticket.ItemGuid,
      FileMimeType: 'image/png',
      FileSize: image.length,
      FileMd5: md5(image),
    });
    expect(await storedBytes((await libraryObjectKeyOf(service.storage, ticket.ItemGuid))!)).toEqual(image);

    const again = await post(`/library/upload/${ticket.ItemGuid}/complete`, Buffer.alloc(0));
    expect(again).toEqual(first);
    const builder = await post(`/library/${ticket.ItemGuid}/builder`, Buffer.alloc(0));
    expect(builder.status).toBe(200);
  });

  it('refuses a non-image with 415, deletes it, and lets the same upload be used again', async () => {
    const ticket = await createUpload();
    await upload(ticket, Buffer.from('GIF? no. just text, long enough to sniff'));
    const refused = await post(`/library/upload/${ticket.ItemGuid}/complete`, Buffer.alloc(0));
    expect(refused.status).toBe(415);
    const missing = await post(`/library/upload/${ticket.ItemGuid}/complete`, Buffer.alloc(0));
    expect(missing.status).toBe(409);
    expect(missing.body.Error.Code).toBe('UploadMissing');

    const image = jpeg('second try');
    await upload(ticket, image);
    const completed = await post(`/library/upload/${ticket.ItemGuid}/complete`, Buffer.alloc(0));
    expect(completed.status).toBe(200);
    expect(completed.body.LibraryItem.FileMd5).toBe(md5(image));
  });

  it('refuses an object over the limit: S3 refuses the POST (its policy), and completion checks the size again', async () => {
    const ticket = await createUpload();
    const body = new FormData();
    for (const [name, value] of Object.entries(ticket.Upload.Fields)) body.append(name, value);
    body.append('file', new Blob([pngOfSize(UPLOAD_MAX_BYTES + 1)]), 'big.png');
    const refused = await fetch(ticket.Upload.Url, { method: 'POST', body });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('<Code>EntityTooLarge</Code>');
    const missing = await post(`/library/upload/${ticket.ItemGuid}/complete`, Buffer.alloc(0));
    expect(missing.body.Error.Code).toBe('UploadMissing');

    // Where an object over the limit is there all the same (a policy that did not hold), completion refuses it.
    await s3Reader.send(
      new PutObjectCommand({
        Bucket: process.env.BUCKET_NAME,
        Key: ticket.Upload.Fields.key,
        Body: pngOfSize(UPLOAD_MAX_BYTES + 1),
      }),
    );
    const { status } = await post(`/library/upload/${ticket.ItemGuid}/complete`, Buffer.alloc(0));
    expect(status).toBe(413);
  });

  it('answers 404 to another API key and for unknown uploads', async () => {
    const ticket = await createUpload();
    await upload(ticket, png());
    const otherKey = await service.apiKey('another-app', 'library');
    expect((await post(`/library/upload/${ticket.ItemGuid}/complete`, Buffer.alloc(0), {}, otherKey)).status).toBe(404);
    expect((await post(`/library/upload/${'f'.repeat(32)}/complete`, Buffer.alloc(0))).status).toBe(404);
  });
});
