/**
 * HEVC-coded HEIF (every iPhone photo since iOS 11) decoded to RGBA with libheif-js: libheif and libde265
 * compiled to WebAssembly. sharp's prebuilt libvips carries libheif with the AV1 decoder only (AVIF), since
 * HEVC's patents keep libde265 out of its binaries (docs/design.md, "Renditions"). libheif applies the
 * file's `irot`, `imir` and `clap` transformations and assembles grid images (iPhone photos are 512 x 512
 * tiles), so the pixels come out as displayed.
 *
 * The decode is synchronous WebAssembly: nothing in its thread can interrupt it. It runs in a worker thread,
 * which the function terminates when the decode passes its time limit or the process passes its memory
 * bound; the function's own thread stays free to watch. One worker serves the process's decodes (libheif
 * instantiates once), and one decode at a time goes to it: the invocations a process runs side by side
 * (Lambda's AWS_LAMBDA_MAX_CONCURRENCY, `npm start`) queue here, so each answer is its own request's, the
 * memory bound watches the one decode that runs, and a time limit starts with its own decode, not while it
 * waits. A terminated worker fails only the decode it was running; the next one starts a fresh worker.
 * (Measured against a pool of workers: docs/design.md, "Renditions".) This module is both sides: the
 * bundled function starts its own file as the worker, which serves decodes when it sees the role in its
 * workerData.
 */
import { isMainThread, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads';

export interface DecodedPixels {
  /** Interleaved RGBA, 8 bits a channel. */
  data: Uint8Array;
  width: number;
  height: number;
  /** The file's bytes, back from the worker. */
  source: Uint8Array;
}

export interface DecodeLimits {
  /** The decode is abandoned after this long. */
  timeoutMs: number;
  /** The decode is abandoned when the process's resident memory passes this many bytes. */
  maxRssBytes: number;
  /** The displayed size the header declares: libheif must find the same, or nothing is decoded. */
  expected: { width: number; height: number };
}

/** The decode cannot be made, with the reason to record; `bytes` are handed back when the worker still had them. */
export class HeifDecodeFailure extends Error {
  readonly bytes: Uint8Array | undefined;
  constructor(reason: string, bytes?: Uint8Array) {
    super(reason);
    this.bytes = bytes;
  }
}

const ROLE = 'heif-decoder';
/** How often the function's thread reads the process's resident memory while a decode runs. */
const MEMORY_POLL_MS = 25;

type Request = { bytes: Uint8Array; expected: { width: number; height: number } };
type Answer = { ok: true; data: Uint8Array; width: number; height: number } | { ok: false; reason: string };
/** The answer, and the file's bytes going back. */
type Reply = Answer & { bytes: Uint8Array };
/** Sent when libheif is loaded and the decode begins: the time limit is the decode's, not the worker's start. */
type Decoding = { decoding: true };

// ---- worker side ----------------------------------------------------------------------------------------

async function decodeInThisThread({ bytes, expected }: Request, port: MessagePort): Promise<Answer> {
  const { default: libheif } = await import('libheif-js/wasm-bundle.js');
  port.postMessage({ decoding: true } satisfies Decoding);
  const decoder = new libheif.HeifDecoder();
  const images = decoder.decode(bytes);
  try {
    const primary = images.find((image) => image.is_primary()) ?? images[0];
    if (!primary) return { ok: false, reason: 'libheif found no image in the file' };
    const width = primary.get_width();
    const height = primary.get_height();
    if (width !== expected.width || height !== expected.height)
      return {
        ok: false,
        reason: `libheif finds ${width} x ${height} pixels where the header declares ${expected.width} x ${expected.height}`,
      };
    const target = { data: new Uint8ClampedArray(width * height * 4), width, height };
    const decoded = await new Promise<{ data: Uint8ClampedArray } | null>((resolve) =>
      primary.display(target, resolve),
    );
    if (!decoded) return { ok: false, reason: 'libheif could not decode the image data' };
    return { ok: true, data: new Uint8Array(decoded.data.buffer), width, height };
  } finally {
    for (const image of images) image.free();
    decoder.decoder?.delete();
  }
}

function serveDecodes(port: NonNullable<typeof parentPort>): void {
  port.on('message', (request: Request) => {
    decodeInThisThread(request, port)
      .catch((error: unknown): Answer => ({
        ok: false,
        reason: error instanceof Error ? error.message : String(error),
      }))
      .then((reply) => {
        const answer: Reply = { ...reply, bytes: request.bytes };
        port.postMessage(answer, [answer.bytes.buffer, ...(answer.ok ? [answer.data.buffer] : [])] as ArrayBuffer[]);
      })
      // An answer that cannot be posted ends this thread (only it): the waiting decode fails on the exit.
      .catch(() => process.exit(1));
  });
}

if (!isMainThread && parentPort && (workerData as { role?: string } | null)?.role === ROLE) serveDecodes(parentPort);

// ---- function side --------------------------------------------------------------------------------------

let worker: Worker | undefined;

function decoderWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(new URL(import.meta.url), { workerData: { role: ROLE } });
  started.unref(); // an idle decoder never keeps the process alive
  started.on('exit', () => {
    if (worker === started) worker = undefined;
  });
  worker = started;
  return started;
}

/** The decodes asked for so far, settled or not: the next one starts when this has settled. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * The primary image of a HEIF file as RGBA. `bytes` move to the worker (no copy): the caller reads them no
 * more, and takes them back from the answer (`source`) or the failure. HeifDecodeFailure with libheif's
 * reason, or the limit that stopped the decode. Decodes asked for while another runs wait their turn.
 */
export function decodeHeif(bytes: Uint8Array, limits: DecodeLimits): Promise<DecodedPixels> {
  // Only a buffer of its own moves: a view into a shared one (Node's pool) would detach its neighbours.
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
  const decoded = queue.then(() => decodeOnWorker(owned, limits));
  queue = decoded.catch(() => undefined);
  return decoded;
}

/** One decode on the worker, the only one it is given until this settles. */
function decodeOnWorker(owned: Uint8Array, limits: DecodeLimits): Promise<DecodedPixels> {
  const decoder = decoderWorker();
  return new Promise<DecodedPixels>((resolve, reject) => {
    // Settled once the worker is gone: the next decode neither shares the process with it nor is charged its memory.
    const stop = (reason: string) => {
      finish();
      worker = undefined;
      void decoder.terminate().finally(() => reject(new HeifDecodeFailure(reason)));
    };
    // The time limit is the decode's: it starts when libheif is loaded (a new worker loads it first).
    let timer: NodeJS.Timeout | undefined;
    const watch = setInterval(() => {
      if (process.memoryUsage.rss() > limits.maxRssBytes)
        stop(`decoding needed more than the ${Math.round(limits.maxRssBytes / 2 ** 20)} MiB of memory it may use`);
    }, MEMORY_POLL_MS);
    const onMessage = (reply: Reply | Decoding) => {
      if ('decoding' in reply) {
        timer = setTimeout(() => stop(`decoding took longer than ${limits.timeoutMs / 1000} s`), limits.timeoutMs);
        return;
      }
      finish();
      if (reply.ok) resolve({ data: reply.data, width: reply.width, height: reply.height, source: reply.bytes });
      else reject(new HeifDecodeFailure(reply.reason, reply.bytes));
    };
    const onExit = (code: number) => {
      finish();
      reject(new HeifDecodeFailure(`the decoder stopped (exit code ${code})`));
    };
    const finish = () => {
      clearTimeout(timer);
      clearInterval(watch);
      decoder.off('message', onMessage);
      decoder.off('exit', onExit);
    };
    decoder.on('message', onMessage);
    decoder.on('exit', onExit);
    decoder.postMessage({ bytes: owned, expected: limits.expected } satisfies Request, [owned.buffer as ArrayBuffer]);
  });
}
