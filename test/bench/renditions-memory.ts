/**
 * Renditions memory: reads one image file the way the renditions function reads an original from S3 and
 * makes both renditions of it, in a fresh process started with the Lambda functions' Node options, and reports
 * the process's peak resident set (the kernel's high-water mark, `maxRSS`): what Lambda's memory size must
 * hold. The figure includes Node.js itself, the modules, the original's bytes, the decoded pixels (all of
 * them for a PNG or HEIC, a shrunk decode for a JPEG) and the encoders.
 *
 * `npx node test/bench/renditions-memory.ts --file <path> --type image/png --width <w> --height <h>`
 */
import { execFile } from 'node:child_process';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { LAMBDA_NODE_OPTIONS } from '../../lib/lambda-runtime.ts';

/** The resident set's high-water mark of this process's memory (Linux), in bytes. */
const peakRss = (): number =>
  Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? Number.NaN) * 1024;

export interface RenditionsMemory {
  /** The high-water mark once the modules are loaded, before the original is read. */
  baselineRssBytes: number;
  peakRssBytes: number;
  seconds: number;
}

export interface MemoryInput {
  file: string;
  type: string;
  width: number;
  height: number;
}

export async function measureRenditionsMemory(input: MemoryInput): Promise<RenditionsMemory> {
  const args = [
    ...LAMBDA_NODE_OPTIONS,
    fileURLToPath(import.meta.url),
    '--file',
    input.file,
    '--type',
    input.type,
    '--width',
    String(input.width),
    '--height',
    String(input.height),
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as RenditionsMemory;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      file: { type: 'string' },
      type: { type: 'string' },
      width: { type: 'string' },
      height: { type: 'string' },
    },
  });
  const { decodingWithinLimit, renderRenditions } = await import('../../functions/renditions/render.ts');
  const { readExactly } = await import('../../functions/shared/read-exactly.ts');
  const baselineRssBytes = peakRss();
  const started = performance.now();
  // Read as the function reads an original from S3 (store/rendition-store.ts): once, into a buffer of its size.
  const file = values.file as string;
  const bytes = await readExactly(createReadStream(file), statSync(file).size, file);
  const source = {
    bytes,
    mimeType: values.type as string,
    orientation: 1,
    width: Number(values.width),
    height: Number(values.height),
  };
  await renderRenditions(source, decodingWithinLimit(source, 100_000_000), {
    maxPixels: 100_000_000,
    timeoutSeconds: 600,
    maxRssBytes: Number.MAX_SAFE_INTEGER,
  });
  const seconds = (performance.now() - started) / 1000;
  const result: RenditionsMemory = { baselineRssBytes, peakRssBytes: peakRss(), seconds };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
