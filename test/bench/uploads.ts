/**
 * Figure 5: uploads. Push of a 4 MB JPEG against a bare S3 PutObject of the same bytes; pull of a 200 MB
 * image against a bare stream copy from the same loopback server to S3; a multi pull of 8 slow URLs
 * against the concurrency bound. Handlers run in-process with events from the real front.
 */
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Check, Figure } from './support/report.ts';
import { median, ms, pairedRatio, ratio, sideBySide, timed } from './support/stats.ts';
import { startWorld, type World } from './support/world.ts';
import { multipartBody, pngOfSize, tinyPng } from '../support/multipart.ts';
import { progress } from './support/progress.ts';

const MB = 1024 * 1024;
const PUSH_BYTES = 4_000_000;
const PULL_BYTES = 200 * MB;
const SLOW_URLS = 8;
const SLOW_MS = 500;
const PUSH_ROUNDS = 31;
/**
 * Runs of each side before the measured ones, so neither is timed while its code paths are still being
 * compiled: a push runs its handler, both SDK clients and the engine's commit path once per run, and V8
 * and DynamoDB Local's JIT optimize them only after tens of runs. With 3 warm-up runs the push read
 * 1.41-1.73 of a bare PutObject and its commit took a median of 5 ms; with 40, 1.27-1.39 and 2.5-3 ms
 * (docs/performance.md).
 */
const PUSH_WARM_UP_ROUNDS = 40;
const PULL_ROUNDS = 3;
const TIME_BUDGET = 1.5;

/**
 * A JPEG as far as any sniffer and header reader can tell: SOI, a JFIF APP0 segment, a baseline frame header
 * (2000 x 1500, three components), filler where the scan would be, EOI.
 */
function jpegOfSize(bytes: number): Buffer {
  const head = Buffer.from('ffd8ffe000104a46494600010100000100010000ffc000110805dc07d003012200021101031101', 'hex');
  const image = Buffer.alloc(bytes, 0x55);
  head.copy(image, 0);
  image.writeUInt16BE(0xffd9, bytes - 2);
  return image;
}

/** `/big.png` streams a 200 MB PNG generated as it is sent; `/slow/<n>.png` answers a tiny PNG after 500 ms. */
function startImageServer(): Promise<{ server: Server; url: string }> {
  const head = pngOfSize(64 * 1024);
  const filler = Buffer.alloc(256 * 1024, 0x61);
  const server = createServer((request, response) => {
    if (request.url?.startsWith('/slow/')) {
      const png = tinyPng();
      setTimeout(
        () => response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length }).end(png),
        SLOW_MS,
      );
      return;
    }
    response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PULL_BYTES });
    let sent = 0;
    const pump = (): void => {
      while (sent < PULL_BYTES) {
        const chunk = sent === 0 ? head : filler.subarray(0, Math.min(filler.length, PULL_BYTES - sent));
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      response.end();
    };
    pump();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

async function invokeOk(world: World, handler: string, event: APIGatewayProxyEvent): Promise<void> {
  const invocation = await world.prepare(handler, event);
  const result = await invocation();
  if (result.statusCode !== 200)
    throw new Error(`${handler} answered ${result.statusCode}: ${result.body.slice(0, 300)}`);
}

export async function run(): Promise<Figure[]> {
  const world = await startWorld({
    PULL_ALLOW_LOOPBACK: 'true',
    PULL_MAX_BYTES: String(PULL_BYTES + MB),
    PULL_TIMEOUT_MS: '600000',
    PULL_REQUEST_TIMEOUT_MS: '600000',
  });
  const images = await startImageServer();
  const bare = new S3Client({
    endpoint: world.service.storage.s3Endpoint,
    forcePathStyle: true,
    region: process.env.AWS_REGION as string,
  });
  const bucket = process.env.BUCKET_NAME as string;
  try {
    const apiKey = await world.service.apiKey('bench-uploads', 'library');
    const rows: string[][] = [];
    const checks: Check[] = [];

    const jpeg = jpegOfSize(PUSH_BYTES);
    const form = multipartBody([{ name: 'image', filename: 'photo.jpg', contentType: 'image/jpeg', data: jpeg }]);
    const pushEvent = await world.capture('POST', '/library/push', {
      apiKey,
      body: form.body,
      headers: { 'Content-Type': form.contentType },
    });
    let bareKeys = 0;
    const pushRun = async () => {
      const invocation = await world.prepare('push-library-item', pushEvent);
      return timed(async () => {
        const result = await invocation();
        if (result.statusCode !== 200)
          throw new Error(`push-library-item answered ${result.statusCode}: ${result.body.slice(0, 300)}`);
      });
    };
    const barePutRun = () =>
      timed(() =>
        bare.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: `bench/bare-${bareKeys++}.jpg`,
            Body: jpeg,
            ContentType: 'image/jpeg',
          }),
        ),
      );
    await sideBySide(PUSH_WARM_UP_ROUNDS, pushRun, barePutRun);
    const push = await sideBySide(PUSH_ROUNDS, pushRun, barePutRun);
    const pushRatio = pairedRatio(push);
    rows.push([
      'Push of a 4 MB JPEG (POST /library/push)',
      ms(median(push.candidate), 0),
      'S3 PutObject of the same bytes',
      ms(median(push.baseline), 0),
      ratio(pushRatio),
      `≤ ${TIME_BUDGET}`,
    ]);
    checks.push({
      name: 'push of a 4 MB JPEG / bare PutObject',
      measured: pushRatio,
      limit: TIME_BUDGET,
      kind: 'max',
      shown: ratio(pushRatio),
    });
    progress(`  push: ${ratio(pushRatio)}`);

    const pullEvent = await world.capture('POST', '/library/pull', { apiKey, json: { Url: `${images.url}/big.png` } });
    const streamCopy = () =>
      new Promise<void>((resolve, reject) => {
        get(`${images.url}/big.png`, (response) => {
          new Upload({
            client: bare,
            params: { Bucket: bucket, Key: `bench/bare-${bareKeys++}.png`, Body: response, ContentType: 'image/png' },
          })
            .done()
            .then(() => resolve(), reject);
        }).on('error', reject);
      });
    const pull = await sideBySide(
      PULL_ROUNDS,
      () => timed(() => invokeOk(world, 'pull-library-item', pullEvent)),
      () => timed(streamCopy),
    );
    const pullRatio = pairedRatio(pull);
    rows.push([
      'Pull of a 200 MB image (POST /library/pull)',
      ms(median(pull.candidate), 0),
      'GET streamed into an S3 multipart Upload',
      ms(median(pull.baseline), 0),
      ratio(pullRatio),
      `≤ ${TIME_BUDGET}`,
    ]);
    checks.push({
      name: 'pull of a 200 MB image / bare stream copy',
      measured: pullRatio,
      limit: TIME_BUDGET,
      kind: 'max',
      shown: ratio(pullRatio),
    });
    progress(`  pull: ${ratio(pullRatio)}`);

    const concurrency = Number(process.env.PULL_CONCURRENCY ?? 4);
    const limitMs = TIME_BUDGET * SLOW_MS * Math.ceil(SLOW_URLS / concurrency);
    const urls = Array.from({ length: SLOW_URLS }, (_, index) => `${images.url}/slow/${index}.png`);
    const multiEvent = await world.capture('POST', '/library/multi/pull', { apiKey, json: { Urls: urls } });
    const multi: number[] = [];
    for (let round = 0; round < 3; round++)
      multi.push(await timed(() => invokeOk(world, 'pull-library-items', multiEvent)));
    rows.push([
      `Multi pull of ${SLOW_URLS} URLs answering after ${SLOW_MS} ms`,
      ms(median(multi), 0),
      `${TIME_BUDGET} × ${SLOW_MS} ms × ceil(${SLOW_URLS} / ${concurrency})`,
      ms(limitMs, 0),
      ratio(median(multi) / limitMs),
      '≤ 1.00',
    ]);
    checks.push({
      name: `multi pull of ${SLOW_URLS} slow URLs (ms)`,
      measured: median(multi),
      limit: limitMs,
      kind: 'max',
      shown: ms(median(multi), 0),
    });
    progress(`  multi pull: ${ms(median(multi), 0)} (limit ${ms(limitMs, 0)})`);

    return [
      {
        title: '5a. Uploads: time',
        howToRead:
          'Handlers run in-process with the API Gateway event the local front builds (API key authorizer context included), storing into s3rver and DynamoDB Local on loopback. ' +
          `Push: a 4 MB JPEG in multipart/form-data (base64 in the event, as API Gateway sends binary bodies) against one S3 PutObject of the same bytes (SDK defaults), ${PUSH_ROUNDS} runs each after ${PUSH_WARM_UP_ROUNDS} warm-up runs, alternating, medians. ` +
          "The service sends the image with a CRC32 that S3 checks, signs it UNSIGNED-PAYLOAD and takes FileMd5 from S3's ETag (the MD5 of an SSE-S3 object stored by one PutObject), so it hashes the 4 MB once; the bare PutObject uses the SDK defaults (CRC32 and a SHA-256 of the payload for the signature). " +
          `Pull: a 200 MB PNG streamed by a loopback server, against a bare copy of the same URL into S3 (node:http GET piped into a lib-storage multipart Upload), ${PULL_ROUNDS} runs each, alternating, medians. ` +
          `Multi pull: ${SLOW_URLS} URLs that each answer after ${SLOW_MS} ms, fetched ${concurrency} at a time (PULL_CONCURRENCY), median of 3; the limit is what a bounded-concurrency fetch needs plus 50 %. ` +
          "The push and pull ratios are the medians of the per-round ratios (a round runs the two back to back, so a change in the machine's load between rounds cancels out of it). " +
          `Budgets: push and pull at most ${TIME_BUDGET} × their bare copy; multi pull within its limit.`,
        columns: ['Request', 'Service', 'Baseline', 'Baseline time', 'Ratio', 'Budget'],
        rows,
        checks,
      },
    ];
  } finally {
    bare.destroy();
    images.server.closeAllConnections();
    images.server.close();
    await world.close();
  }
}
