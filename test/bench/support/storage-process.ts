/**
 * Child process for benchmarks that measure the service's own memory: the local DynamoDB and S3 (and,
 * optionally, a generated image server) run here, outside the measured process, as they are outside a
 * Lambda function. Prints one JSON line with the endpoints, then serves until its parent closes stdin.
 *
 * Started with `startStorageProcess()`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startLocalStorage } from '../../../lib/local/storage.ts';
import { tinyPng } from '../../support/multipart.ts';

export interface StorageProcess {
  dynamoEndpoint: string;
  s3Endpoint: string;
  /** Serves `/image-<bytes>.png`: a PNG signature and header, then generated filler up to that many bytes. */
  imageServerUrl: string;
  /** MD5 (uppercase hex) of the image of that size, as the image server sends it. */
  imageMd5(bytes: number): string;
  close(): Promise<void>;
}

const FILLER = Buffer.alloc(256 * 1024, 0x61);
const pngHead = () => tinyPng().subarray(0, 33);

/** The bytes of `/image-<size>.png`, in the chunks they are sent in. */
function* imageChunks(size: number): Generator<Buffer> {
  const head = pngHead();
  yield head;
  for (let sent = head.length; sent < size; sent += FILLER.length)
    yield FILLER.subarray(0, Math.min(FILLER.length, size - sent));
}

export function imageMd5(size: number): string {
  const hash = createHash('md5');
  for (const chunk of imageChunks(size)) hash.update(chunk);
  return hash.digest('hex').toUpperCase();
}

export async function startStorageProcess(): Promise<StorageProcess> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`storage process exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  const endpoints = JSON.parse(line) as Pick<StorageProcess, 'dynamoEndpoint' | 's3Endpoint' | 'imageServerUrl'>;
  return {
    ...endpoints,
    imageMd5,
    close: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.stdin!.end();
      }),
  };
}

if (import.meta.main) {
  const storage = await startLocalStorage({});
  const images = createServer((request, response) => {
    const size = Number(/^\/image-(\d+)\.png$/.exec(request.url ?? '')?.[1]);
    if (!Number.isSafeInteger(size) || size < 64) return void response.writeHead(404).end();
    response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': size });
    const chunks = imageChunks(size);
    const pump = () => {
      for (let next = chunks.next(); !next.done; next = chunks.next())
        if (!response.write(next.value)) return void response.once('drain', pump);
      response.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  const imageServerUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  process.stdout.write(
    `${JSON.stringify({ dynamoEndpoint: storage.dynamoEndpoint, s3Endpoint: storage.s3Endpoint, imageServerUrl })}\n`,
  );
  process.stdin.resume();
  process.stdin.on('end', async () => {
    images.closeAllConnections();
    images.close();
    await storage.close();
    process.exit(0);
  });
}
