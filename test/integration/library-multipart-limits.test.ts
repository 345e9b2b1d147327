/**
 * What bounds a resumable upload, over HTTP against the local stack: at most MULTIPART_MAX_OPEN_PER_KEY
 * open uploads per API key, exactly, also under concurrent starts, each freed once by its completion,
 * refusal, abort or expiry; part URLs bound to their part's size (the local S3 refuses any other body as S3
 * does, and stores nothing); the object typed as its bytes whatever type was declared; a declared type
 * that cannot be sent as a header refused with a 400 that changes nothing.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startTestService, type TestService } from '../support/service.ts';
import { photoOfSize, pngOfSize } from '../support/images.ts';
import { libraryObjectKeyOf, snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import {
  completeUpload,
  partBytes,
  partUrls,
  putParts,
  startRequest,
  startUpload,
  type Upload,
} from '../support/resumable-uploads.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';

const MIB = 1024 * 1024;
const HOUR = 60 * 60 * 1000;

let service: TestService;
let s3: S3Client;

beforeAll(async () => {
  service = await startTestService({ env: { MULTIPART_MAX_BYTES: String(64 * MIB) } });
  s3 = new S3Client({
    endpoint: service.storage.s3Endpoint,
    forcePathStyle: true,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
});
afterAll(async () => {
  s3?.destroy();
  await service?.close();
});

const newKey = (name: string) => service.apiKey(name, 'library');
const status = (upload: Upload, apiKey: string) =>
  service.request('GET', `/library/uploads/${upload.ItemGuid}`, { apiKey });

/** Runs `test` with MULTIPART_MAX_OPEN_PER_KEY at `quota` (the service reads the changed environment). */
async function withQuota(quota: number, test: () => Promise<void>): Promise<void> {
  const previous = process.env.MULTIPART_MAX_OPEN_PER_KEY;
  process.env.MULTIPART_MAX_OPEN_PER_KEY = String(quota);
  try {
    await test();
  } finally {
    if (previous === undefined) delete process.env.MULTIPART_MAX_OPEN_PER_KEY;
    else process.env.MULTIPART_MAX_OPEN_PER_KEY = previous;
  }
}

/** A start the quota refuses: 409 UploadQuotaExceeded naming the limit, and nothing stored. */
async function expectQuotaRefusal(apiKey: string, quota: number): Promise<void> {
  const before = await snapshotStore(service);
  const refused = await startRequest(service, apiKey, 1000);
  expect(refused.status, refused.text).toBe(409);
  expect(refused.body.Error.Code).toBe('UploadQuotaExceeded');
  expect(refused.body.Error.Message).toContain(`at most ${quota} open resumable uploads`);
  expect(storeDiff(before, await snapshotStore(service))).toEqual([]);
}

/** Uploads the whole file's parts and completes. */
async function uploadAndComplete(apiKey: string, upload: Upload) {
  const partNumbers = Array.from({ length: upload.PartCount }, (_, index) => index + 1);
  const etags = await putParts(service, apiKey, upload, partNumbers);
  return completeUpload(service, apiKey, upload, [...etags]);
}

describe('open resumable uploads per API key', { timeout: 120_000 }, () => {
  it('the 101st open upload of a key is 409 UploadQuotaExceeded and starts nothing; another key is not affected', async () => {
    const key = await newKey('quota-default');
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => startRequest(service, key, 1000)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    }
    await expectQuotaRefusal(key, 100);
    expect((await startRequest(service, await newKey('quota-default-other'), 1000)).status).toBe(200);
  });

  it('completion, refusal and abort each free one place, once: replays free nothing more', async () => {
    await withQuota(3, async () => {
      const key = await newKey('quota-ends');
      const image = await startUpload(service, key, photoOfSize(1000, 1));
      const notImage = await startUpload(service, key, Buffer.alloc(1000, 0x41), { FileName: 'notes.txt' });
      const aborted = await startUpload(service, key, photoOfSize(1000, 2));
      await expectQuotaRefusal(key, 3);

      const abort = () => service.request('DELETE', `/library/uploads/${aborted.ItemGuid}`, { apiKey: key });
      expect((await abort()).status).toBe(200);
      await startUpload(service, key, photoOfSize(1000, 3));
      expect((await abort()).status).toBe(200);
      await expectQuotaRefusal(key, 3);

      const completed = await uploadAndComplete(key, image);
      expect(completed.status, completed.text).toBe(200);
      await startUpload(service, key, photoOfSize(1000, 4));
      expect((await completeUpload(service, key, image, [[1, 'any']])).body).toEqual(completed.body);
      await expectQuotaRefusal(key, 3);

      expect((await uploadAndComplete(key, notImage)).status).toBe(415);
      await startUpload(service, key, photoOfSize(1000, 5));
      expect((await completeUpload(service, key, notImage, [[1, 'any']])).status).toBe(415);
      await expectQuotaRefusal(key, 3);
    });
  });

  it('makes at most the quota of uploads out of 130 concurrent starts of one key, the rest 409', async () => {
    const key = await newKey('quota-race');
    const answers = await Promise.all(Array.from({ length: 130 }, () => startRequest(service, key, 1000)));
    const started = answers.filter((answer) => answer.status === 200).map((answer) => answer.body.ItemGuid as string);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(started).toHaveLength(100);
    expect(refused).toHaveLength(30);
    for (const answer of refused) expect(answer.body.Error?.Code, answer.text).toBe('UploadQuotaExceeded');
    // The key's record lists exactly the uploads that started, and each has its record.
    const { items } = await snapshotStore(service);
    const quotaRecord = [...items.values()].find((item) => item.open?.M?.[started[0] as string] !== undefined);
    expect(Object.keys(quotaRecord?.open?.M ?? {}).sort()).toEqual([...started].sort());
    for (const itemGuid of started) expect(items.has(`UPLOAD#${itemGuid}|MULTIPART`)).toBe(true);
    await expectQuotaRefusal(key, 100);
  });

  it('an upload past its expiry frees its place at once, and its sweep frees nothing more', async () => {
    await withQuota(3, async () => {
      const key = await newKey('quota-expiry');
      // Long enough that the refusal below comes before the first upload expires on a loaded machine.
      const EXPIRY_SECONDS = 5;
      process.env.MULTIPART_EXPIRY_SECONDS = String(EXPIRY_SECONDS);
      try {
        for (let i = 0; i < 3; i++) await startUpload(service, key, photoOfSize(1000, i + 1));
        const lastStarted = Date.now();
        await expectQuotaRefusal(key, 3);
        const untilExpired = lastStarted + EXPIRY_SECONDS * 1000 + 100 - Date.now();
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, untilExpired)));
      } finally {
        delete process.env.MULTIPART_EXPIRY_SECONDS;
      }
      // Expired (TTL has not deleted their records yet): their places are free.
      const later = [];
      for (let i = 0; i < 3; i++) later.push(await startUpload(service, key, photoOfSize(1000, i + 4)));
      await expectQuotaRefusal(key, 3);
      // DynamoDB's TTL deletes the expired records (an hour after expiry) and the sweeper aborts their S3 uploads.
      expect((await service.expireTtl(Date.now() + 2 * HOUR)).swept).toBeGreaterThanOrEqual(3);
      await expectQuotaRefusal(key, 3);
      for (const upload of later) expect((await status(upload, key)).status).toBe(200);
    });
  });
});

/** S3's error code in an XML refusal. */
const codeOf = async (answer: Response) => /<Code>([^<]+)<\/Code>/.exec(await answer.text())?.[1];

/** A raw PUT of `body` to `url` as chunks, without Content-Length (Transfer-Encoding: chunked). */
function putChunked(url: string, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sending = httpRequest(url, { method: 'PUT', headers: { 'Transfer-Encoding': 'chunked' } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    sending.on('error', reject);
    sending.end(body);
  });
}

/** Sends the signed Content-Length with `sent` bytes of body only, then closes the connection. */
function putShort(url: string, contentLength: number, sent: Buffer): Promise<void> {
  const { host, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`PUT ${pathname}${search} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: ${contentLength}\r\n\r\n`);
      socket.end(sent);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.resume();
  });
}

describe('part URLs bound to their part’s size', { timeout: 120_000 }, () => {
  it('refuses a part of another size with 403 SignatureDoesNotMatch and stores nothing; the right size is stored', async () => {
    const key = await newKey('part-sizes');
    const upload = await startUpload(service, key, photoOfSize(6 * MIB, 6));
    expect(upload).toMatchObject({ PartSize: 5 * MIB, PartCount: 2 });
    const urls = await partUrls(service, key, upload, [1, 2]);
    const wrong: [number, Buffer][] = [
      [1, Buffer.alloc(64 * MIB, 1)],
      [1, partBytes(upload, 1).subarray(1)],
      [2, partBytes(upload, 1)],
    ];
    for (const [partNumber, body] of wrong) {
      const answer = await fetch(urls.get(partNumber) as string, { method: 'PUT', body });
      expect(answer.status).toBe(403);
      expect(await codeOf(answer)).toBe('SignatureDoesNotMatch');
    }
    const chunked = await putChunked(urls.get(2) as string, partBytes(upload, 2));
    expect(chunked.status).toBe(403);
    expect(chunked.text).toContain('<Code>SignatureDoesNotMatch</Code>');
    // The signed Content-Length with a shorter body: the connection ends before the part is whole.
    await putShort(urls.get(2) as string, partBytes(upload, 2).length, partBytes(upload, 2).subarray(0, MIB / 2));
    expect((await status(upload, key)).body.Parts).toEqual([]);

    const completed = await uploadAndComplete(key, upload);
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body.LibraryItem.FileSize).toBe(6 * MIB);
  });
});

describe('the stored object’s type', { timeout: 120_000 }, () => {
  const storedType = async (itemGuid: string) => {
    const objectKey = await libraryObjectKeyOf(service.storage, itemGuid);
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'photo-commerce-images', Key: objectKey }));
    return { contentType: head.ContentType, etag: head.ETag };
  };

  it('is the sniffed type when another was declared: a PNG declared text/html is stored as image/png', async () => {
    const key = await newKey('stored-type');
    const upload = await startUpload(service, key, pngOfSize(6 * MIB), {
      FileName: 'page.html',
      ContentType: 'text/html',
    });
    const completed = await uploadAndComplete(key, upload);
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body.LibraryItem).toMatchObject({ FileMimeType: 'image/png', FileSize: 6 * MIB });
    expect((await storedType(upload.ItemGuid)).contentType).toBe('image/png');
  });

  it('is kept as S3 assembled it when the declared type is the sniffed one: no copy', async () => {
    const key = await newKey('declared-type');
    const upload = await startUpload(service, key, photoOfSize(6 * MIB, 7), { ContentType: 'image/jpeg' });
    expect((await uploadAndComplete(key, upload)).status).toBe(200);
    // A multipart object's ETag (`-<parts>`): the object S3 assembled, not a copy of it.
    expect(await storedType(upload.ItemGuid)).toEqual({
      contentType: 'image/jpeg',
      etag: expect.stringMatching(/-2"$/),
    });
  });
});

describe('declared text that is sent as a header', () => {
  const unsendable = ['text/html\r\nX-Injected: 1', 'image/jpeg\n', 'image/jpeg\r', 'image/jpeg; name=📷', '📷'];

  it('refuses a ContentType with CR, LF or an emoji with 400 naming it, and stores nothing', async () => {
    const key = await newKey('header-text');
    const before = await snapshotStore(service);
    for (const ContentType of unsendable) {
      const answer = await startRequest(service, key, 1000, { ContentType });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.Error).toMatchObject({ Code: 'ValidationFailed', Fields: ['ContentType'] });
      expect(answer.body.Error.Message).toMatch(/^ContentType: must be printable ASCII/);
    }
    expect(storeDiff(before, await snapshotStore(service))).toEqual([]);
  });

  it('takes any FileName: it is kept in the record, never sent as a header', async () => {
    const key = await newKey('file-names');
    for (const FileName of ['📷 holiday.jpg', 'line\r\nbreak.jpg'])
      expect((await startRequest(service, key, 1000, { FileName })).status).toBe(200);
  });
});
