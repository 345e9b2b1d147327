/**
 * Pull memory benchmark: the service (handlers in this process, PULL_ALLOW_LOOPBACK=true) pulls one 200 MB
 * image from a loopback server, and this process's resident set is sampled throughout. DynamoDB, S3 and the
 * image server run in a child process (test/bench/support/storage-process.ts), as they are outside a Lambda
 * function: the figure is the memory of the pull path alone. It streams (fetch -> sniff -> MD5/size meter ->
 * S3 multipart upload), so the peak growth over the baseline (taken after a small warm-up pull and a full
 * GC) must stay under 64 MB whatever the image size.
 *
 * Reading the figure: the pipeline holds a few MB of stream buffers plus the S3 parts in flight (5 MB each).
 * The rest of the growth is dead Buffers V8 has not collected yet. The growth is about the same for a 20 MB
 * and a 400 MB image (`--mb`), which is what streaming means.
 *
 * The measured process runs with the Lambda functions' Node options (lib/lambda-runtime.ts), so the figure
 * is the deployed configuration's.
 *
 * `npx node test/bench/pull-memory.ts [--mb 200] [--limit-mb 64]`: prints the figures, exits 1 over the
 * limit or when the stored size or MD5 is wrong. The benchmark suite reuses `measurePullMemory`.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestService } from '../support/service.ts';
import { startStorageProcess } from './support/storage-process.ts';
import { LAMBDA_NODE_OPTIONS } from '../../lib/lambda-runtime.ts';

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

function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

interface PullMemoryOptions {
  imageMb?: number;
  limitMb?: number;
  sampleMs?: number;
}

/** Runs the measurement in a fresh process started with the Lambda functions' Node options. */
export async function measurePullMemory(options: PullMemoryOptions = {}): Promise<PullMemoryResult> {
  const args = [
    ...LAMBDA_NODE_OPTIONS,
    fileURLToPath(import.meta.url),
    '--json',
    '--mb',
    String(options.imageMb ?? 200),
    '--limit-mb',
    String(options.limitMb ?? 64),
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    env: { ...process.env, POWERTOOLS_METRICS_DISABLED: 'true' },
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as PullMemoryResult;
}

async function measureInThisProcess(options: PullMemoryOptions): Promise<PullMemoryResult> {
  const imageBytes = (options.imageMb ?? 200) * MB;
  const limitBytes = (options.limitMb ?? 64) * MB;
  const storage = await startStorageProcess();
  const service = await startTestService({
    externalStorage: storage,
    // The pull's memory alone: in AWS the renditions of the pulled image are made by another function.
    renditions: false,
    env: {
      PULL_ALLOW_LOOPBACK: 'true',
      PULL_MAX_BYTES: String(imageBytes + MB),
      PULL_TIMEOUT_MS: '600000',
      PULL_REQUEST_TIMEOUT_MS: '600000',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
  });
  try {
    const apiKey = await service.apiKey('pull-memory-bench', 'library');
    const pull = async (path: string) => {
      const response = await service.request('POST', '/library/pull', {
        apiKey,
        json: { Url: `${storage.imageServerUrl}${path}` },
      });
      if (response.status !== 200) throw new Error(`pull of ${path} answered ${response.status}: ${response.text}`);
      return response.body as { LibraryItem: { FileSize: number; FileMd5: string } };
    };
    // Loads the handler, the SDK clients and their connection pools, so the baseline holds them.
    await pull(`/image-${WARM_UP_BYTES}.png`);
    fullGc();
    const baselineRssBytes = process.memoryUsage.rss();
    let peakRssBytes = baselineRssBytes;
    const sampler = setInterval(() => {
      peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
    }, options.sampleMs ?? 5);
    const started = performance.now();
    let result: Awaited<ReturnType<typeof pull>>;
    try {
      result = await pull(`/image-${imageBytes}.png`);
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
      verified:
        result.LibraryItem.FileSize === imageBytes && result.LibraryItem.FileMd5 === storage.imageMd5(imageBytes),
    };
  } finally {
    await service.close();
    await storage.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      mb: { type: 'string', default: '200' },
      'limit-mb': { type: 'string', default: '64' },
      json: { type: 'boolean', default: false },
    },
  });
  const options = { imageMb: Number(values.mb), limitMb: Number(values['limit-mb']) };
  if (values.json) {
    process.stdout.write(`${JSON.stringify(await measureInThisProcess(options))}\n`);
    process.exit(0);
  }
  const result = await measurePullMemory(options);
  const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
  process.stdout.write(
    [
      `pull of a ${mb(result.imageBytes)} image in ${result.seconds.toFixed(1)} s (${mb(result.imageBytes / result.seconds)}/s), node ${LAMBDA_NODE_OPTIONS.join(' ')}`,
      `RSS baseline (after a 64 KB pull and a full GC) ${mb(result.baselineRssBytes)}, peak ${mb(result.peakRssBytes)}, peak growth ${mb(result.peakGrowthBytes)} (limit ${mb(result.limitBytes)})`,
      `stored size and MD5 match: ${result.verified ? 'yes' : 'NO'}`,
      result.withinLimit && result.verified ? 'PASS' : 'FAIL',
      '',
    ].join('\n'),
  );
  process.exit(result.withinLimit && result.verified ? 0 : 1);
}
