/**
 * The download signer (functions/store/download-signer.ts) signs presigned GETs and part PUTs itself: its
 * URLs must be byte for byte those of the SDK's getSignedUrl for the same object, content type (a part's
 * upload and Content-Length), lifetime and time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GetObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { presignDownloads, presignUploadParts, type Download } from '../../functions/store/download-signer.ts';

const keys = [
  'library/0123456789abcdef0123456789abcdef/fedcba9876543210fedcba9876543210',
  "uploads/odd name (1)!'*~.jpg",
  'library/ü/é+%/x',
];

/** Signing only: nothing is sent. The AWS client is built without the test run's loopback AWS_ENDPOINT_URL so it resolves AWS's own endpoint. */
function awsClient(): S3Client {
  const endpointUrl = process.env.AWS_ENDPOINT_URL;
  delete process.env.AWS_ENDPOINT_URL;
  try {
    return new S3Client({
      region: 'eu-west-1',
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    });
  } finally {
    if (endpointUrl !== undefined) process.env.AWS_ENDPOINT_URL = endpointUrl;
  }
}

// Checksums only where required, as the service's client (functions/shared/clients/s3.ts): a GET carries none.
const clients = {
  'local path-style endpoint, session token': new S3Client({
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    endpoint: 'http://127.0.0.1:4569',
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: {
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      sessionToken: 'token/with+chars=',
    },
  }),
  'AWS virtual-hosted endpoint': awsClient(),
};

afterEach(() => {
  vi.useRealTimers();
});

describe('presigned downloads', () => {
  for (const [name, s3] of Object.entries(clients)) {
    it(`are the SDK's getSignedUrl URLs (${name})`, async () => {
      for (const at of ['2026-11-23T19:48:38.123Z', '2026-11-24T00:00:00.000Z']) {
        vi.useFakeTimers({ toFake: ['Date'] });
        vi.setSystemTime(new Date(at));
        const downloads = keys.map((objectKey, index): Download => ({
          objectKey,
          contentType: index === 1 ? 'image/heic' : index === 2 ? 'image/webp' : 'image/jpeg',
          disposition: index === 2 ? 'inline' : 'attachment',
        }));
        const ours = await presignDownloads(s3, 'photo-bucket', downloads, 900);
        const sdk = await Promise.all(
          downloads.map(({ objectKey, contentType, disposition }) =>
            getSignedUrl(
              s3,
              new GetObjectCommand({
                Bucket: 'photo-bucket',
                Key: objectKey,
                ResponseContentType: contentType,
                ResponseContentDisposition: disposition,
              }),
              { expiresIn: 900 },
            ),
          ),
        );
        expect(ours).toEqual(sdk);
      }
    });
  }

  it('signs nothing for no downloads', async () => {
    expect(await presignDownloads(clients['AWS virtual-hosted endpoint'], 'photo-bucket', [], 900)).toEqual([]);
  });
});

describe('presigned part uploads', () => {
  for (const [name, s3] of Object.entries(clients)) {
    it(`are the SDK's getSignedUrl URLs with the part's Content-Length signed (${name})`, async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-11-23T19:48:38.123Z'));
      const upload = { objectKey: keys[0] as string, uploadId: 'VXBsb2FkIElE+/=~' };
      const parts = [
        { partNumber: 1, size: 5_242_880 },
        { partNumber: 410, size: 1 },
      ];
      const ours = await presignUploadParts(s3, 'photo-bucket', upload, parts, 3600);
      const sdk = await Promise.all(
        parts.map(({ partNumber, size }) =>
          getSignedUrl(
            s3,
            new UploadPartCommand({
              Bucket: 'photo-bucket',
              Key: upload.objectKey,
              UploadId: upload.uploadId,
              PartNumber: partNumber,
              ContentLength: size,
            }),
            { expiresIn: 3600, signableHeaders: new Set(['content-length']) },
          ),
        ),
      );
      expect(ours).toEqual(sdk);
      expect(ours[0]).toContain('X-Amz-SignedHeaders=content-length%3Bhost');
    });
  }
});
