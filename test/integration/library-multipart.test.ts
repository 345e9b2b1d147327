/**
 * Resumable uploads over HTTP against the local stack: the service's five endpoints, and the parts PUT
 * straight to the local S3 (s3rver with the multipart stand-in of lib/local/s3-multipart.ts) through the
 * presigned URLs, as a browser does.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, ListPartsCommand, S3Client } from '@aws-sdk/client-s3';
import { startTestService, type TestService } from '../support/service.ts';
import { photoOfSize } from '../support/images.ts';
import { snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import {
  completeUpload,
  putParts as putPartsOf,
  s3UploadOf as s3UploadOfRecord,
  signParts,
  startUpload,
  type Upload,
} from '../support/resumable-uploads.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';

const MIB = 1024 * 1024;
const MAX_BYTES = 64 * MIB;

let service: TestService;
let key: string;
let otherKey: string;
let s3: S3Client;
let sweepAfterMs: number;

beforeAll(async () => {
  service = await startTestService({ env: { MULTIPART_MAX_BYTES: String(MAX_BYTES) } });
  key = await service.apiKey('multipart', 'library');
  otherKey = await service.apiKey('multipart-other', 'library');
  s3 = new S3Client({
    endpoint: service.storage.s3Endpoint,
    forcePathStyle: true,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  sweepAfterMs = (await import('../../functions/domain/library.ts')).SWEEP_AFTER_MS;
});
afterAll(async () => {
  s3?.destroy();
  await service?.close();
});

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex').toUpperCase();

const start = (file: Buffer, apiKey = key, fileName = 'photo.jpg') =>
  startUpload(service, apiKey, file, { FileName: fileName });
const sign = (upload: Upload, partNumbers: number[], apiKey = key) => signParts(service, apiKey, upload, partNumbers);
const putParts = (upload: Upload, partNumbers: number[]) => putPartsOf(service, key, upload, partNumbers);
const complete = (upload: Upload, parts: [number, string][], apiKey = key) =>
  completeUpload(service, apiKey, upload, parts);
const s3UploadOf = (upload: Upload) => s3UploadOfRecord(service, upload);

async function storedObject(itemGuid: string): Promise<Buffer | undefined> {
  const objectKey = [...(await snapshotStore(service)).objects.keys()].find((k) => k.endsWith(`/${itemGuid}`));
  if (objectKey === undefined) return undefined;
  const object = await s3.send(new GetObjectCommand({ Bucket: 'photo-commerce-images', Key: objectKey }));
  return Buffer.from(await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
}

async function s3UploadGone(s3Upload: { Key: string; UploadId: string }): Promise<boolean> {
  return s3.send(new ListPartsCommand({ Bucket: 'photo-commerce-images', ...s3Upload })).then(
    () => false,
    (error: Error) => error.name === 'NoSuchUpload',
  );
}

describe('resumable uploads', { timeout: 120_000 }, () => {
  it('start, parts out of order and in parallel, complete: answered as a push, the stored bytes and MD5 are the file', async () => {
    const upload = await start(photoOfSize(12 * MIB + 12_345, 1));
    expect(upload).toMatchObject({ PartSize: 5 * MIB, PartCount: 3 });
    expect(upload.ItemGuid).toMatch(/^[0-9a-f]{32}$/);
    const etags = await putParts(upload, [3, 1, 2]);
    const answer = await complete(upload, [...etags].reverse());
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      LibraryItem: {
        ItemGuid: upload.ItemGuid,
        FileMimeType: 'image/jpeg',
        FileSize: upload.file.length,
        FileMd5: md5(upload.file),
      },
      ProductBuilderUrl: expect.stringMatching(/\/builder\/[0-9a-f]+$/),
    });
    const stored = await storedObject(upload.ItemGuid);
    expect(stored?.length).toBe(upload.file.length);
    expect(md5(stored as Buffer)).toBe(md5(upload.file));
    expect(
      (await service.request('GET', `/library/${upload.ItemGuid}`, { apiKey: key })).body.LibraryItem,
    ).toMatchObject({
      Width: 30,
      Height: 20,
    });

    // A repeat answers the same and writes nothing.
    const before = await snapshotStore(service);
    const again = await complete(upload, [...etags]);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(answer.body);
    expect(storeDiff(before, await snapshotStore(service))).toEqual([]);
    // Completed: no more parts, no listing, no abort.
    expect((await sign(upload, [1])).status).toBe(409);
    expect((await service.request('DELETE', `/library/uploads/${upload.ItemGuid}`, { apiKey: key })).status).toBe(409);
  });

  it('resumes after listing what S3 holds', async () => {
    const upload = await start(photoOfSize(11 * MIB, 2));
    const first = await putParts(upload, [1, 3]);
    const status = await service.request('GET', `/library/uploads/${upload.ItemGuid}`, { apiKey: key });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ ItemGuid: upload.ItemGuid, PartSize: 5 * MIB, PartCount: 3 });
    expect(status.body.ExpiresDateUtc).toMatch(/^\/Date\(\d+\)\/$/);
    expect(status.body.Parts).toEqual([
      { PartNumber: 1, Size: 5 * MIB, ETag: first.get(1) },
      { PartNumber: 3, Size: MIB, ETag: first.get(3) },
    ]);
    // The client lost its state: the listing gives it the parts to skip, and their ETags.
    await putParts(upload, [2]);
    const listed = (await service.request('GET', `/library/uploads/${upload.ItemGuid}`, { apiKey: key })).body
      .Parts as { PartNumber: number; ETag: string }[];
    const answer = await complete(
      upload,
      listed.map((part) => [part.PartNumber, part.ETag.replaceAll('"', '')]),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.LibraryItem.FileMd5).toBe(md5(upload.file));
  });

  it('refuses a wrong ETag, a part of another upload, a missing part, naming the part; then completes', async () => {
    const upload = await start(photoOfSize(11 * MIB, 3));
    const other = await start(photoOfSize(11 * MIB, 4));
    const etags = await putParts(upload, [1, 2]);
    const otherEtags = await putParts(other, [1]);
    const before = await snapshotStore(service);

    const refusals = [
      [
        [1, '"00000000000000000000000000000000"'],
        [2, etags.get(2)],
        [3, etags.get(2)],
      ],
      [
        [1, otherEtags.get(1)],
        [2, etags.get(2)],
        [3, etags.get(2)],
      ],
      [
        [1, etags.get(1)],
        [3, etags.get(2)],
      ],
      [
        [1, etags.get(1)],
        [2, etags.get(2)],
        [3, etags.get(2)],
      ],
    ] as [number, string][][];
    const expected = [1, 1, 2, 3];
    for (const [index, parts] of refusals.entries()) {
      const answer = await complete(upload, parts);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.Error).toMatchObject({ Code: 'InvalidPart', PartNumber: expected[index] });
      expect(answer.body.Error.Message).toMatch(new RegExp(`^Part ${expected[index]}: `));
    }
    expect(storeDiff(before, await snapshotStore(service))).toEqual([]);

    const last = await putParts(upload, [3]);
    const answer = await complete(upload, [...etags, ...last]);
    expect(answer.status, answer.text).toBe(200);
  });

  it('answers 404 to another API key, for every call', async () => {
    const upload = await start(photoOfSize(6 * MIB, 5));
    const etags = await putParts(upload, [1, 2]);
    const path = `/library/uploads/${upload.ItemGuid}`;
    const answers = [
      await sign(upload, [1], otherKey),
      await service.request('GET', path, { apiKey: otherKey }),
      await complete(upload, [...etags], otherKey),
      await service.request('DELETE', path, { apiKey: otherKey }),
    ];
    for (const answer of answers) expect(answer.body.Error?.Code, answer.text).toBe('UploadNotFound');
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404]);
    expect((await complete(upload, [...etags])).status).toBe(200);
  });

  it('aborts: the parts are gone, the upload is no more, a repeat answers the same', async () => {
    const upload = await start(photoOfSize(6 * MIB, 6));
    const etags = await putParts(upload, [1, 2]);
    const path = `/library/uploads/${upload.ItemGuid}`;
    const aborted = await service.request('DELETE', path, { apiKey: key });
    expect(aborted.status).toBe(200);
    expect(aborted.body).toEqual({ ItemGuid: upload.ItemGuid, Aborted: true });
    expect(await s3UploadGone(await s3UploadOf(upload))).toBe(true);
    expect((await service.request('DELETE', path, { apiKey: key })).body).toEqual(aborted.body);
    expect((await service.request('GET', path, { apiKey: key })).status).toBe(404);
    expect((await sign(upload, [1])).status).toBe(404);
    expect((await complete(upload, [...etags])).status).toBe(404);
  });

  it('refuses a file that is no image with 415, keeps nothing, and the parts are gone; a repeat answers the same', async () => {
    const upload = await start(Buffer.alloc(6 * MIB, 0x41), key, 'notes.txt');
    const etags = await putParts(upload, [1, 2]);
    const before = await snapshotStore(service);
    const answer = await complete(upload, [...etags]);
    expect(answer.status, answer.text).toBe(415);
    expect(answer.body.Error.Code).toBe('UnsupportedMediaType');
    expect(await s3UploadGone(await s3UploadOf(upload))).toBe(true);
    expect(await storedObject(upload.ItemGuid)).toBeUndefined();
    // Only the upload's own record changed (it is refused) and its key's open uploads (it is no more); no item, no object.
    const changed = storeDiff(before, await snapshotStore(service));
    expect(changed).toHaveLength(2);
    expect(changed).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^item changed: UPLOAD#APIKEY#[0-9a-f]+\|QUOTA#MULTIPART$/),
        `item changed: UPLOAD#${upload.ItemGuid}|MULTIPART`,
      ]),
    );
    const again = await complete(upload, [...etags]);
    expect(again.status).toBe(415);
    expect(again.body).toEqual(answer.body);
  });

  it('completes once when complete calls race: the others answer the same or ask to retry', async () => {
    const upload = await start(photoOfSize(6 * MIB, 7));
    const etags = await putParts(upload, [2, 1]);
    const answers = await Promise.all(Array.from({ length: 6 }, () => complete(upload, [...etags])));
    const done = answers.filter((answer) => answer.status === 200);
    expect(done.length).toBeGreaterThan(0);
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.body).toEqual(done[0]?.body);
      else expect(answer.body.Error).toMatchObject({ Code: 'UploadInProgress', Retryable: true });
    }
    const final = await complete(upload, [...etags]);
    expect(final.body).toEqual(done[0]?.body);
    const items = [...(await snapshotStore(service)).items.keys()].filter(
      (k) => k === `LIBITEM#${upload.ItemGuid}|LIBITEM`,
    );
    expect(items).toHaveLength(1);
  });

  it('validates sizes and part numbers', async () => {
    const tooBig = await service.request('POST', '/library/uploads', {
      apiKey: key,
      json: { FileName: 'big.tif', ContentType: 'image/tiff', FileSize: MAX_BYTES + 1 },
    });
    expect(tooBig.status).toBe(413);
    const empty = await service.request('POST', '/library/uploads', {
      apiKey: key,
      json: { FileName: 'empty.jpg', ContentType: 'image/jpeg', FileSize: 0 },
    });
    expect(empty.status).toBe(400);
    const small = await start(photoOfSize(1000, 8));
    expect(small).toMatchObject({ PartSize: 5 * MIB, PartCount: 1 });
    expect((await sign(small, [2])).body.Error).toMatchObject({ Code: 'InvalidPart', PartNumber: 2 });
    expect(
      (
        await sign(
          small,
          Array.from({ length: 101 }, (_, i) => i + 1),
        )
      ).status,
    ).toBe(400);
    expect((await sign(small, [1, 1])).status).toBe(400);
    const etags = await putParts(small, [1]);
    expect((await complete(small, [...etags])).body.LibraryItem.FileSize).toBe(1000);
  });

  it('an abandoned upload is aborted by the sweeper once its record expires', async () => {
    const upload = await start(photoOfSize(6 * MIB, 9));
    await putParts(upload, [1]);
    const s3Upload = await s3UploadOf(upload);
    expect(await s3UploadGone(s3Upload)).toBe(false);
    const expiresAt = Number(
      /\d+/.exec(
        (await service.request('GET', `/library/uploads/${upload.ItemGuid}`, { apiKey: key })).body.ExpiresDateUtc,
      )?.[0],
    );
    const run = await service.expireTtl(expiresAt + sweepAfterMs + 60_000);
    expect(run.swept).toBeGreaterThan(0);
    expect(await s3UploadGone(s3Upload)).toBe(true);
    expect((await service.request('GET', `/library/uploads/${upload.ItemGuid}`, { apiKey: key })).status).toBe(404);
  });
});
