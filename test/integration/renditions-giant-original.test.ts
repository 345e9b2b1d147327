/**
 * An original larger than RENDITION_MAX_BYTES over HTTP: a 1 GiB PNG uploaded in parts (resumable uploads
 * accept 2 GiB) is stored and readable, and its renditions are Failed from its record, without reading it.
 * From source only: moving 1 GiB through the local S3 three times (parts, assembly, the completion's check)
 * takes half a minute, and the bundled function runs the same check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordS3Request } from '../../lib/local/aws-call-log.ts';
import { functionCredentials } from '../../lib/local/function-credentials.ts';
import type { S3Call } from '../../lib/local/s3-calls.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { decidedItem } from '../support/library-push.ts';
import { tinyPng } from '../support/multipart.ts';

let service: TestService;
let apiKey: string;
/** Every S3 call of the run, still recorded for the IAM check too. */
const s3Calls: S3Call[] = [];

beforeAll(async () => {
  service = await startTestService({
    onS3Request: (call) => {
      recordS3Request(call);
      s3Calls.push(call);
    },
  });
  apiKey = await service.apiKey('giant-original-test', 'library');
}, 120_000);
afterAll(async () => {
  await service?.close();
}, 120_000);

const renditionsOf = (itemGuid: string) => decidedItem(service, apiKey, itemGuid);

/**
 * A PNG of `size` bytes that is never held whole: its IHDR and image data (a 1 x 1 PNG's), then one
 * ancillary chunk of filler up to the size, then IEND. `slice` makes any range of it.
 */
function virtualPng(size: number): { size: number; slice(start: number, end: number): Buffer } {
  const png = tinyPng();
  const iend = png.subarray(png.length - 12);
  const fillerLength = size - png.length - 12;
  const chunkHeader = Buffer.alloc(8);
  chunkHeader.writeUInt32BE(fillerLength);
  chunkHeader.write('tEXt', 4, 'latin1');
  const head = Buffer.concat([png.subarray(0, png.length - 12), chunkHeader]);
  const tail = Buffer.concat([Buffer.alloc(4), iend]); // the filler chunk's CRC (not checked by anyone), IEND
  return {
    size,
    slice(start, end) {
      const bytes = Buffer.alloc(end - start, 0x61);
      if (start < head.length) head.copy(bytes, 0, start, Math.min(head.length, end));
      const tailStart = size - tail.length;
      if (end > tailStart) tail.copy(bytes, Math.max(0, tailStart - start), Math.max(0, start - tailStart));
      return bytes;
    },
  };
}

describe('an original larger than RENDITION_MAX_BYTES (512 MiB)', { timeout: 600_000 }, () => {
  it('a 1 GiB PNG uploaded in parts: stored and readable, renditions Failed without reading it', async () => {
    const file = virtualPng(1024 * 1024 * 1024);
    const started = await service.request('POST', '/library/uploads', {
      apiKey,
      json: { FileName: 'giant.png', ContentType: 'image/png', FileSize: file.size },
    });
    expect(started.status, started.text).toBe(200);
    const { ItemGuid, PartSize, PartCount } = started.body;
    const etags: { PartNumber: number; ETag: string }[] = [];
    for (let first = 1; first <= PartCount; first += 100) {
      const numbers = Array.from({ length: Math.min(100, PartCount - first + 1) }, (_, i) => first + i);
      const signed = await service.request('POST', `/library/uploads/${ItemGuid}/parts`, {
        apiKey,
        json: { PartNumbers: numbers },
      });
      expect(signed.status, signed.text).toBe(200);
      const parts = signed.body.Parts as { PartNumber: number; Url: string }[];
      for (let at = 0; at < parts.length; at += 4)
        etags.push(
          ...(await Promise.all(
            parts.slice(at, at + 4).map(async ({ PartNumber, Url }) => {
              const body = file.slice((PartNumber - 1) * PartSize, Math.min(file.size, PartNumber * PartSize));
              const put = await fetch(Url, { method: 'PUT', body });
              expect(put.status).toBe(200);
              return { PartNumber, ETag: put.headers.get('etag') as string };
            }),
          )),
        );
    }
    const completed = await service.request('POST', `/library/uploads/${ItemGuid}/complete`, {
      apiKey,
      json: { Parts: etags },
    });
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body.LibraryItem).toMatchObject({ FileMimeType: 'image/png', FileSize: file.size });

    const item = await renditionsOf(ItemGuid);
    expect(item.Renditions).toEqual({
      Status: 'Failed',
      Reason: 'The original is 1024 MiB, more than the 512 MiB renditions are made from.',
    });
    // Decided from the record alone: the renditions function asked S3 for nothing (1 GiB would take
    // seconds, and 1 GiB of its memory).
    const renditionsKey = functionCredentials('make-renditions').accessKeyId;
    expect(s3Calls.filter((call) => call.via === 'presigned-url')).toHaveLength(PartCount); // the recording works
    expect(s3Calls.filter((call) => call.accessKeyId === renditionsKey)).toEqual([]);
  });
});
