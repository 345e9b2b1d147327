/**
 * Reading a large stored object in ranges (functions/store/image-object-store.ts, readObjectRanges), as the
 * check of a completed resumable upload above 256 MiB does: every byte, in order, against the local S3.
 * (Only the version named is read, by If-Match on each range: S3 enforces it, s3rver ignores it.)
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let objects: typeof import('../../functions/store/image-object-store.ts');
let s3: typeof import('../../functions/shared/clients/s3.ts');

beforeAll(async () => {
  service = await startTestService();
  // Loaded after the service set the environment their clients read.
  objects = await import('../../functions/store/image-object-store.ts');
  s3 = await import('../../functions/shared/clients/s3.ts');
});
afterAll(() => service?.close());

describe('ranged reads of a stored object', { timeout: 60_000 }, () => {
  it('answer every byte in order, in ranges of 8 MiB fetched a few at a time', async () => {
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    const bytes = Buffer.alloc(21 * 1024 * 1024 + 7);
    for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32BE(i, i);
    await s3.s3.send(new PutObjectCommand({ Bucket: process.env.BUCKET_NAME, Key: 'library/ranges/a', Body: bytes }));
    const head = (await objects.openObject('library/ranges/a')) as {
      etag: string;
      size: number;
      body: { destroy(): void };
    };
    head.body.destroy();
    const chunks: Buffer[] = [];
    for await (const chunk of objects.readObjectRanges('library/ranges/a', head.etag, head.size)) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.length)).toEqual([8 * 1024 * 1024, 8 * 1024 * 1024, 5 * 1024 * 1024 + 7]);
    const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
    expect(md5(Buffer.concat(chunks))).toBe(md5(bytes));
  });
});
