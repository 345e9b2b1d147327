/**
 * Pull memory benchmark: the service (in this process, PULL_ALLOW_LOOPBACK=true) pulls one 200 MB image
 * from a loopback server, and the process's resident set is sampled throughout. The pull path streams
 * (fetch -> sniff -> MD5/size meter -> S3 multipart upload), so the peak growth over the baseline (taken
 * after a small warm-up pull and a full GC) must stay under 64 MB whatever the image size.
 *
 * Reading the figure: the bytes the pipeline holds at once are a few MB of stream buffers plus the S3
 * parts in flight (2 x 5 MB). Most of the growth is dead Buffers V8 has not collected yet: it runs a
 * full GC for ArrayBuffer memory only after tens of MB have piled up, and in this process every image
 * byte is allocated about four times (socket read, S3 part, and twice in the in-process S3 stand-in).
 * The growth is about the same for a 20 MB and a 400 MB image (`--mb`), which is what streaming means.
 *
 * `npx node test/bench/pull-memory.ts [--mb 200] [--limit-mb 64]`: prints the figures, exits 1 over the
 * limit or when the stored size or MD5 is wrong. The benchmark suite reuses `measurePullMemory`.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestService } from '../support/service.ts';
import { tinyPng } from '../support/multipart.ts';

const MB = 1024 * 1024;
const WARM_UP_BYTES = 64 * 1024;

export interface PullMemoryResult {
  imageBytes: number;
  baselineRssBytes: number;
  peakRssBytes: number;
  /** Peak sampled RSS minus the baseline taken after a 64 KB warm-up pull and a full GC. */
  peakGrowthBytes: number;
  limitBytes: number;
  withinLimit: boolean;
  seconds: number;
  /** The stored item's size and MD5 matched what the server sent. */
  verified: boolean;
}

/** Serves `/image.png` (and `/warm-up.png`): a PNG signature and header, then filler up to the size, generated as it is sent. */
function startImageServer(bytes: number): Promise<{ server: Server; url: string; md5: () => string | undefined }> {
  const head = tinyPng().subarray(0, 33);
  const filler = Buffer.alloc(256 * 1024, 0x61);
  let lastMd5: string | undefined;
  const server = createServer((request, response) => {
    const size = request.url === '/warm-up.png' ? WARM_UP_BYTES : bytes;
    const hash = createHash('md5');
    response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': size });
    let sent = 0;
    const write = (chunk: Buffer) => {
      hash.update(chunk);
      sent += chunk.length;
      return response.write(chunk);
    };
    const pump = () => {
      if (sent === 0 && !write(head)) return void response.once('drain', pump);
      while (sent < size) {
        if (!write(filler.subarray(0, Math.min(filler.length, size - sent)))) return void response.once('drain', pump);
      }
      if (request.url === '/image.png') lastMd5 = hash.digest('hex').toUpperCase();
      response.end();
    };
    pump();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, md5: () => lastMd5 })));
}

function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

export async function measurePullMemory(options: { imageMb?: number; limitMb?: number; sampleMs?: number } = {}): Promise<PullMemoryResult> {
  const imageBytes = (options.imageMb ?? 200) * MB;
  const limitBytes = (options.limitMb ?? 64) * MB;
  const images = await startImageServer(imageBytes);
  const service = await startTestService({
    env: { PULL_ALLOW_LOOPBACK: 'true', PULL_MAX_BYTES: String(imageBytes + MB), PULL_TIMEOUT_MS: '600000', PULL_REQUEST_TIMEOUT_MS: '600000', POWERTOOLS_LOG_LEVEL: 'ERROR', POWERTOOLS_METRICS_DISABLED: 'true' },
  });
  try {
    const apiKey = await service.apiKey('pull-memory-bench', 'library');
    const pull = async (path: string) => {
      const response = await service.request('POST', '/library/pull', { apiKey, json: { Url: `${images.url}${path}` } });
      if (response.status !== 200) throw new Error(`pull of ${path} answered ${response.status}: ${response.text}`);
      return response.body as { LibraryItem: { FileSize: number; FileMd5: string } };
    };
    // Loads the handler, the SDK clients and their connection pools, so the baseline holds them.
    await pull('/warm-up.png');
    fullGc();
    const baselineRssBytes = process.memoryUsage.rss();
    let peakRssBytes = baselineRssBytes;
    const sampler = setInterval(() => {
      peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
    }, options.sampleMs ?? 5);
    const started = performance.now();
    let result: Awaited<ReturnType<typeof pull>>;
    try {
      result = await pull('/image.png');
    } finally {
      clearInterval(sampler);
    }
    peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
    const peakGrowthBytes = peakRssBytes - baselineRssBytes;
    return {
      imageBytes,
      baselineRssBytes,
      peakRssBytes,
      peakGrowthBytes,
      limitBytes,
      withinLimit: peakGrowthBytes <= limitBytes,
      seconds: (performance.now() - started) / 1000,
      verified: result.LibraryItem.FileSize === imageBytes && result.LibraryItem.FileMd5 === images.md5(),
    };
  } finally {
    images.server.closeAllConnections();
    images.server.close();
    await service.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { mb: { type: 'string', default: '200' }, 'limit-mb': { type: 'string', default: '64' } } });
  const result = await measurePullMemory({ imageMb: Number(values.mb), limitMb: Number(values['limit-mb']) });
  const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
  process.stdout.write(
    [
      `pull of a ${mb(result.imageBytes)} image in ${result.seconds.toFixed(1)} s (${mb(result.imageBytes / result.seconds)}/s)`,
      `RSS baseline (after a 64 KB pull and a full GC) ${mb(result.baselineRssBytes)}, peak ${mb(result.peakRssBytes)}, peak growth ${mb(result.peakGrowthBytes)} (limit ${mb(result.limitBytes)})`,
      `stored size and MD5 match: ${result.verified ? 'yes' : 'NO'}`,
      result.withinLimit && result.verified ? 'PASS' : 'FAIL',
      '',
    ].join('\n'),
  );
  process.exit(result.withinLimit && result.verified ? 0 : 1);
}
