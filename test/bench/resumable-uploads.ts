/**
 * Figure 5c: resumable uploads of a 200 MB photo. Uploading through the service's parts (start, one sign
 * call, 40 part PUTs to the presigned URLs, 4 at a time, as a browser does) against a bare S3 multipart
 * upload of the same bytes (CreateMultipartUpload and UploadPart, 4 at a time); completing (the parts
 * checked, S3 assembling the object, one streamed read through the MD5 meter, the commit) against a bare
 * streamed GetObject of the same object with an MD5 computed on it. Handlers run in-process with events
 * from the real front; storage is s3rver with the local multipart stand-in and DynamoDB Local.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'node:http';
import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { Check, Figure } from './support/report.ts';
import { median, ms, ratio, timed } from './support/stats.ts';
import { startWorld, type World } from './support/world.ts';
import { photoOfSize } from '../support/images.ts';
import { progress } from './support/progress.ts';

const MB = 1024 * 1024;
const FILE_BYTES = 200 * MB;
const PARALLEL_PARTS = 4;
const ROUNDS = 7;
const UPLOAD_BUDGET = 1.2;
const COMPLETE_BUDGET = 1.5;

/** Runs `work` on every item, `limit` at a time. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

async function invoke(world: World, handler: string, method: string, path: string, apiKey: string, json?: unknown) {
  const event = await world.capture(method, path, { apiKey, ...(json !== undefined ? { json } : {}) });
  const invocation = await world.prepare(handler, event);
  let body: any;
  const time = await timed(async () => {
    const result = await invocation();
    if (result.statusCode !== 200)
      throw new Error(`${handler} answered ${result.statusCode}: ${result.body.slice(0, 300)}`);
    body = JSON.parse(result.body);
  });
  return { time, body };
}

/** Keep-alive connections, as the SDK's own HTTP handler keeps them: the two sides differ in what they send, not how. */
const agent = new Agent({ keepAlive: true, maxSockets: PARALLEL_PARTS });

/** PUTs a part's bytes to its presigned URL; answers the ETag. */
function putPart(url: string, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const put = request(url, { method: 'PUT', agent, headers: { 'Content-Length': body.length } }, (answer) => {
      answer.resume();
      answer.on('end', () =>
        answer.statusCode === 200
          ? resolve(answer.headers.etag as string)
          : reject(new Error(`PUT ${answer.statusCode}`)),
      );
    });
    put.on('error', reject);
    put.end(body);
  });
}

export async function run(): Promise<Figure[]> {
  const world = await startWorld({ MULTIPART_MAX_BYTES: String(FILE_BYTES) });
  const bare = new S3Client({
    endpoint: world.service.storage.s3Endpoint,
    forcePathStyle: true,
    region: process.env.AWS_REGION as string,
  });
  const bucket = process.env.BUCKET_NAME as string;
  const records = await import('../../functions/store/multipart-upload-store.ts');
  try {
    const apiKey = await world.service.apiKey('bench-resumable', 'library');
    const photo = photoOfSize(FILE_BYTES, 9);
    const partBytes = (partSize: number, partNumber: number) =>
      photo.subarray((partNumber - 1) * partSize, partNumber * partSize);

    /** The service's way: start, one sign call, the PUTs. Answers the time and what completing needs. */
    async function serviceUpload() {
      const start = await invoke(world, 'start-multipart-upload', 'POST', '/library/uploads', apiKey, {
        FileName: 'photo.jpg',
        ContentType: 'image/jpeg',
        FileSize: FILE_BYTES,
      });
      const { ItemGuid, PartSize, PartCount } = start.body as { ItemGuid: string; PartSize: number; PartCount: number };
      const numbers = Array.from({ length: PartCount }, (_, index) => index + 1);
      const sign = await invoke(world, 'sign-multipart-parts', 'POST', `/library/uploads/${ItemGuid}/parts`, apiKey, {
        PartNumbers: numbers,
      });
      const parts: { PartNumber: number; ETag: string }[] = [];
      const put = await timed(() =>
        pool(sign.body.Parts as { PartNumber: number; Url: string }[], PARALLEL_PARTS, async ({ PartNumber, Url }) => {
          parts.push({ PartNumber, ETag: await putPart(Url, partBytes(PartSize, PartNumber)) });
        }),
      );
      return { time: start.time + sign.time + put, itemGuid: ItemGuid, parts };
    }

    /** The bare SDK multipart upload of the same bytes in the same parts (aborted afterwards, untimed). */
    async function bareUpload(key: string) {
      let uploadId = '';
      const time = await timed(async () => {
        uploadId = (
          await bare.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'image/jpeg' }))
        ).UploadId as string;
        const numbers = Array.from({ length: Math.ceil(FILE_BYTES / (5 * MB)) }, (_, index) => index + 1);
        await pool(numbers, PARALLEL_PARTS, async (PartNumber) => {
          await bare.send(
            new UploadPartCommand({
              Bucket: bucket,
              Key: key,
              UploadId: uploadId,
              PartNumber,
              Body: partBytes(5 * MB, PartNumber),
            }),
          );
        });
      });
      await bare.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
      return time;
    }

    const complete = async (upload: Awaited<ReturnType<typeof serviceUpload>>) => {
      const done = await invoke(
        world,
        'complete-multipart-upload',
        'POST',
        `/library/uploads/${upload.itemGuid}/complete`,
        apiKey,
        {
          Parts: upload.parts,
        },
      );
      return { time: done.time, objectKey: (await records.getMultipartUpload(upload.itemGuid))?.objectKey as string };
    };

    /** A bare streamed GetObject of the object with an MD5 on it. */
    const bareReadMd5 = (objectKey: string) =>
      timed(async () => {
        const object = await bare.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey }));
        const hash = createHash('md5');
        for await (const chunk of object.Body as Readable) hash.update(chunk as Buffer);
        hash.digest('hex');
      });

    // A warm-up round: every code path compiled, and an object for the first bare read.
    let objectKey = (await complete(await serviceUpload())).objectKey;
    await bareUpload('bench/bare-resumable-warm-up');
    await bareReadMd5(objectKey);

    const uploads = { candidate: [] as number[], baseline: [] as number[] };
    const completes = { candidate: [] as number[], baseline: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      // ABBA: which side goes first alternates, so drift in the machine's load falls on both alike.
      const bareFirst = round % 2 === 1;
      if (bareFirst) uploads.baseline.push(await bareUpload(`bench/bare-resumable-${round}`));
      const upload = await serviceUpload();
      uploads.candidate.push(upload.time);
      if (!bareFirst) uploads.baseline.push(await bareUpload(`bench/bare-resumable-${round}`));
      // The bare read takes the latest completed object: the same bytes, as S3 assembled them.
      if (bareFirst) completes.baseline.push(await bareReadMd5(objectKey));
      const completed = await complete(upload);
      completes.candidate.push(completed.time);
      objectKey = completed.objectKey;
      if (!bareFirst) completes.baseline.push(await bareReadMd5(objectKey));
      progress(
        `  resumable round ${round + 1}: upload ${ms(upload.time, 0)} (bare ${ms(uploads.baseline[round] as number, 0)}), complete ${ms(completed.time, 0)} (bare ${ms(completes.baseline[round] as number, 0)})`,
      );
    }
    // The completion's CPU for the largest file (MULTIPART_MAX_BYTES, 2 GiB): the meter alone, over bytes in
    // memory, so no storage or network is in the figure: what one vCPU (1,769 MB of Lambda memory) must do.
    const { ImageMeter } = await import('../../functions/library/image-stream.ts');
    const slice = photo.subarray(0, 8 * MB);
    async function* twoGiB() {
      for (let sent = 0; sent < 2048 * MB; sent += slice.length) yield slice;
    }
    const meterMs = await timed(() => new ImageMeter(2048 * MB, 'image/jpeg').measure(twoGiB()));
    progress(`  meter over 2 GiB: ${ms(meterMs, 0)}`);
    const ratioOf = (samples: { candidate: number[]; baseline: number[] }) =>
      median(samples.candidate.map((value, index) => value / (samples.baseline[index] as number)));
    const uploadRatio = ratioOf(uploads);
    const completeRatio = ratioOf(completes);
    const checks: Check[] = [
      {
        name: 'resumable upload of 200 MB in parts / bare S3 multipart upload',
        measured: uploadRatio,
        limit: UPLOAD_BUDGET,
        kind: 'max',
        shown: ratio(uploadRatio),
      },
      {
        name: 'completing a 200 MB resumable upload / bare streamed GetObject + MD5',
        measured: completeRatio,
        limit: COMPLETE_BUDGET,
        kind: 'max',
        shown: ratio(completeRatio),
      },
    ];
    progress(`  resumable: upload ${ratio(uploadRatio)}, complete ${ratio(completeRatio)}`);
    const megabytesPerSecond = (FILE_BYTES / MB / (median(completes.candidate) / 1000)).toFixed(0);
    return [
      {
        title: '5c. Resumable uploads of a 200 MB photo: time',
        howToRead:
          'Handlers run in-process with the API Gateway event the local front builds; parts go to s3rver with the local multipart stand-in (lib/local/s3-multipart.ts), records to DynamoDB Local, all on loopback. ' +
          `Upload: POST /library/uploads, one POST .../parts for all 40 part numbers, then 40 PUTs of 5 MiB to the presigned URLs (node:http, keep-alive, as the SDK connects), ${PARALLEL_PARTS} at a time (what a browser with Uppy does), against CreateMultipartUpload and 40 UploadPart calls of the SDK (defaults), ${PARALLEL_PARTS} at a time. ` +
          'Complete: POST .../complete (ListParts, the parts checked, CompleteMultipartUpload, one streamed GET whose first bytes give the type, read through the image meter: MD5, size, header metadata; the outcome recorded, the commit), against a streamed GetObject of the same object hashed with MD5 in the same process. ' +
          `${ROUNDS} rounds after a warm-up round, the two sides of a round back to back and alternating which goes first; the ratios are medians of the per-round ratios. ` +
          `Completion streams at about ${megabytesPerSecond} MB/s here. Budgets: upload at most ${UPLOAD_BUDGET} × the bare multipart upload, completion at most ${COMPLETE_BUDGET} × the bare read with MD5.`,
        columns: ['Request', 'Service', 'Baseline', 'Baseline time', 'Ratio', 'Budget'],
        rows: [
          [
            'Upload 200 MB in 40 parts, 4 at a time',
            ms(median(uploads.candidate), 0),
            'SDK multipart upload, 4 parts at a time',
            ms(median(uploads.baseline), 0),
            ratio(uploadRatio),
            `≤ ${UPLOAD_BUDGET}`,
          ],
          [
            'The meter over 2 GiB in memory (MD5, size, header; one core)',
            ms(meterMs, 0),
            `${(2048 / (meterMs / 1000)).toFixed(0)} MB/s`,
            '',
            '',
            'none',
          ],
          [
            'Complete (POST /library/uploads/{guid}/complete)',
            ms(median(completes.candidate), 0),
            'Streamed GetObject + MD5',
            ms(median(completes.baseline), 0),
            ratio(completeRatio),
            `≤ ${COMPLETE_BUDGET}`,
          ],
        ],
        checks,
      },
    ];
  } finally {
    agent.destroy();
    bare.destroy();
    await world.close();
  }
}
