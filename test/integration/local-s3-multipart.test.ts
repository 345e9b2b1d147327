/**
 * The local S3's multipart stand-in (lib/local/s3-multipart.ts) answers as S3 does where the service and
 * Uppy meet it: ListParts in pages, and S3's refusals of a malformed paging argument and of a Complete
 * request too big for its kind. Driven through the SDK's own S3 client.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CompleteMultipartUploadCommand,
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListPartsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { startTestService, type TestService } from '../support/service.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';

let service: TestService;
let s3: S3Client;
let upload: { Bucket: string; Key: string; UploadId: string };

beforeAll(async () => {
  service = await startTestService();
  s3 = new S3Client({
    endpoint: service.storage.s3Endpoint,
    forcePathStyle: true,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  const object = { Bucket: process.env.BUCKET_NAME as string, Key: 'library/local-s3/parts' };
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand(object));
  upload = { ...object, UploadId: UploadId as string };
  for (const PartNumber of [1, 2, 3])
    await s3.send(new UploadPartCommand({ ...upload, PartNumber, Body: Buffer.alloc(16, PartNumber) }));
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  await service?.close();
});

const errorOf = (sending: Promise<unknown>) =>
  sending.then(
    () => undefined,
    (error: { name: string; $metadata?: { httpStatusCode?: number } }) => ({
      name: error.name,
      status: error.$metadata?.httpStatusCode,
    }),
  );

it('lists parts in pages of max-parts, from part-number-marker', async () => {
  const first = await s3.send(new ListPartsCommand({ ...upload, MaxParts: 2 }));
  expect(first.Parts?.map((part) => part.PartNumber)).toEqual([1, 2]);
  expect(first).toMatchObject({ IsTruncated: true, NextPartNumberMarker: '2' });
  const rest = await s3.send(new ListPartsCommand({ ...upload, PartNumberMarker: first.NextPartNumberMarker }));
  expect(rest.Parts?.map((part) => part.PartNumber)).toEqual([3]);
  expect(rest.IsTruncated).toBe(false);
});

it('refuses a paging argument that is no whole number with 400 InvalidArgument', async () => {
  expect(await errorOf(s3.send(new ListPartsCommand({ ...upload, MaxParts: -1 })))).toEqual({
    name: 'InvalidArgument',
    status: 400,
  });
  expect(await errorOf(s3.send(new ListPartsCommand({ ...upload, PartNumberMarker: '1.5' })))).toEqual({
    name: 'InvalidArgument',
    status: 400,
  });
});

it('refuses a Complete request past 2 MiB with 400 MaxMessageLengthExceeded, and keeps the upload', async () => {
  const Parts = Array.from({ length: 30_000 }, (_, index) => ({ PartNumber: index + 1, ETag: `"${'0'.repeat(32)}"` }));
  expect(await errorOf(s3.send(new CompleteMultipartUploadCommand({ ...upload, MultipartUpload: { Parts } })))).toEqual(
    { name: 'MaxMessageLengthExceeded', status: 400 },
  );
  const listed = await s3.send(new ListPartsCommand(upload));
  expect(listed.Parts?.map((part) => part.PartNumber)).toEqual([1, 2, 3]);
});

it('starts an upload that names its parts’ checksum algorithm (x-amz-checksum-algorithm), as S3 does', async () => {
  const started = await s3.send(
    new CreateMultipartUploadCommand({
      Bucket: upload.Bucket,
      Key: 'library/local-s3/with-algorithm',
      ChecksumAlgorithm: 'CRC32',
    }),
  );
  expect(started.UploadId).toBeTruthy();
  await s3.send(
    new AbortMultipartUploadCommand({
      Bucket: upload.Bucket,
      Key: 'library/local-s3/with-algorithm',
      UploadId: started.UploadId,
    }),
  );
});
