/**
 * Figure 8, renditions (functions/renditions/render.ts, the renditions function's work):
 * - 8a: both renditions of a 24-megapixel JPEG against the same two resizes written with bare sharp
 *   (shrink-on-load, same WebP settings), side by side in this process; a 12-megapixel HEIC (HEVC, through
 *   libheif-js) and a 12-megapixel JPEG for scale.
 * - 8b: peak memory of 50-megapixel images, each in a fresh process (renditions-memory.ts), against the
 *   function's memory size (lib/constructs/routeless-functions.ts).
 * - 8c: what the product builder page downloads for 20 phone-size photos, in Chromium, against the bytes
 *   of the originals.
 */
import { readFileSync, statSync } from 'node:fs';
import libheif from 'libheif-js/wasm-bundle.js';
import sharp from 'sharp';
import type { Figure } from './support/report.ts';
import { median, mib, ms, pairedRatio, sideBySide, timed } from './support/stats.ts';
import { photoHeic, photoJpeg, photoPng, photoTiff16 } from './support/photos.ts';
import { measureRenditionsMemory, type MemoryInput } from './renditions-memory.ts';
import { decodingWithinLimit, renderRenditions } from '../../functions/renditions/render.ts';
import { ROUTELESS_FUNCTIONS } from '../../lib/constructs/routeless-functions.ts';
import { startSiteStack } from '../support/site.ts';

const ROUNDS = 7;
const HEIC_ROUNDS = 5;
const LIMITS = { maxPixels: 100_000_000, timeoutSeconds: 600, maxRssBytes: Number.MAX_SAFE_INTEGER };

/** What a developer would write with sharp alone: each size from the file, shrink-on-load, the same WebP settings. */
const bareResizes = (bytes: Buffer) =>
  Promise.all(
    [320, 1600].map((side) =>
      sharp(bytes).resize(side, side, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer(),
    ),
  );

const fitInside = (side: number) => ({ width: side, height: side, fit: 'inside', withoutEnlargement: true }) as const;

/** What a developer would write with libheif-js and sharp alone: decode in this thread, each size from the pixels. */
async function bareHeic(bytes: Buffer) {
  const decoder = new libheif.HeifDecoder();
  const [image] = decoder.decode(bytes);
  if (!image) throw new Error('libheif found no image');
  const [width, height] = [image.get_width(), image.get_height()];
  const target = { data: new Uint8ClampedArray(width * height * 4), width, height };
  const decoded = await new Promise<{ data: Uint8ClampedArray } | null>((resolve) => image.display(target, resolve));
  image.free();
  decoder.decoder?.delete();
  if (!decoded) throw new Error('libheif could not decode the image');
  return Promise.all(
    [320, 1600].map((side) =>
      sharp(decoded.data, { raw: { width, height, channels: 4 } })
        .resize(fitInside(side))
        .webp({ quality: 80 })
        .toBuffer(),
    ),
  );
}

async function speed(): Promise<Figure> {
  const jpeg24 = readFileSync(await photoJpeg(6000, 4000));
  // What the function does with an original it has read: the pixel count from the file, then the renditions.
  const render = (bytes: Buffer, mimeType: string, width: number, height: number) => {
    const source = { bytes, mimeType, orientation: 1, width, height };
    return renderRenditions(source, decodingWithinLimit(source, LIMITS.maxPixels), LIMITS);
  };
  // Warm-up: libvips' and the encoders' first calls set things up.
  await render(jpeg24, 'image/jpeg', 6000, 4000);
  await bareResizes(jpeg24);
  const samples = await sideBySide(
    ROUNDS,
    () => timed(() => render(jpeg24, 'image/jpeg', 6000, 4000)),
    () => timed(() => bareResizes(jpeg24)),
  );
  const ratio = pairedRatio(samples);
  const jpeg12 = readFileSync(await photoJpeg(4032, 3024));
  const jpeg12Times = [];
  for (let round = 0; round < 3; round++) jpeg12Times.push(await timed(() => render(jpeg12, 'image/jpeg', 4032, 3024)));
  const heic = readFileSync(await photoHeic(4032, 3024));
  // The function's bytes move to its HEVC decoder's worker: each round renders its own copy, made untimed.
  const renderHeic = () => {
    const copy = Buffer.from(heic);
    return timed(() => render(copy, 'image/heic', 4032, 3024));
  };
  await renderHeic();
  await bareHeic(heic);
  const heicSamples = await sideBySide(HEIC_ROUNDS, renderHeic, () => timed(() => bareHeic(heic)));
  const heicRatio = pairedRatio(heicSamples);
  return {
    title: '8a. Renditions: time',
    howToRead:
      `Both renditions (Thumbnail 320, Preview 1600, WebP quality 80) of a 6000 x 4000 JPEG made by renditions/render.ts (one decode with shrink-on-load, the Thumbnail from the Preview's pixels) against the same two resizes written with bare sharp (each from the file, shrink-on-load), ${ROUNDS} rounds after a warm-up, alternating which goes first; the ratio is the median of the per-round ratios. ` +
      `Budget: at most 1.2 times the bare resizes. The 12-megapixel HEIC (HEVC in a grid of 512 x 512 tiles, as iPhones write it; tiled from a committed coded tile, test/bench/support/photos.ts) is decoded by libheif-js in WebAssembly, in the function's worker thread with its time and memory limits; against libheif-js called in this thread and the same two resizes from its pixels with bare sharp, ${HEIC_ROUNDS} rounds, same budget. The 12-megapixel JPEG is reported for scale (median of 3).`,
    columns: ['Image', 'renditions/render.ts', 'bare sharp', 'ratio'],
    rows: [
      [
        `JPEG 6000 x 4000 (${mib(jpeg24.length)})`,
        ms(median(samples.candidate), 0),
        ms(median(samples.baseline), 0),
        ratio.toFixed(2),
      ],
      [`JPEG 4032 x 3024 (${mib(jpeg12.length)})`, ms(median(jpeg12Times), 0), '', ''],
      [
        `HEIC 4032 x 3024 (${mib(heic.length)})`,
        ms(median(heicSamples.candidate), 0),
        ms(median(heicSamples.baseline), 0),
        heicRatio.toFixed(2),
      ],
    ],
    checks: [
      { name: 'renditions of a 24 MP JPEG / bare sharp resizes', measured: ratio, limit: 1.2, kind: 'max' },
      {
        name: 'renditions of a 12 MP HEIC / bare libheif-js decode and sharp resizes',
        measured: heicRatio,
        limit: 1.2,
        kind: 'max',
      },
    ],
  };
}

/** Decoding's own working memory the largest original may add to the runtime and its bytes (libvips' buffers, the Preview's pixels). */
const DECODE_ALLOWANCE_BYTES = 256 * 2 ** 20;

async function memory(): Promise<Figure> {
  const memoryMb = ROUTELESS_FUNCTIONS.renditions.memorySize;
  const [width, height] = [8660, 5774];
  const inputs: (MemoryInput & { label: string })[] = [
    { label: 'JPEG (shrink-on-load)', file: await photoJpeg(width, height), type: 'image/jpeg', width, height },
    { label: 'PNG (decoded whole)', file: await photoPng(width, height), type: 'image/png', width, height },
    {
      label: 'HEIC (libheif-js, decoded whole)',
      file: await photoHeic(width, height),
      type: 'image/heic',
      width,
      height,
    },
  ];
  const rows: string[][] = [];
  let peak = 0;
  const measure = async (input: MemoryInput & { label: string }) => {
    const result = await measureRenditionsMemory(input);
    peak = Math.max(peak, result.peakRssBytes);
    rows.push([
      `${input.label}, ${mib(statSync(input.file).size)}`,
      mib(result.baselineRssBytes),
      mib(result.peakRssBytes),
      `${result.seconds.toFixed(1)} s`,
    ]);
    return result;
  };
  for (const input of inputs) await measure(input);
  // The largest original the function reads: just under RENDITION_MAX_BYTES, within RENDITION_MAX_PIXELS.
  const [largeWidth, largeHeight] = [9400, 9500];
  const large = await photoTiff16(largeWidth, largeHeight);
  const largeBytes = statSync(large).size;
  const largest = await measure({
    label: `TIFF ${largeWidth} x ${largeHeight}, 16-bit RGB uncompressed (the largest original read)`,
    file: large,
    type: 'image/tiff',
    width: largeWidth,
    height: largeHeight,
  });
  const beyond = largest.peakRssBytes - largest.baselineRssBytes - largeBytes;
  return {
    title: '8b. Renditions: peak memory of a 50-megapixel image and of the largest original',
    howToRead:
      `Both renditions of a ${width} x ${height} image (50 megapixels) and of a ${mib(largeBytes)} original (RENDITION_MAX_BYTES is 512 MiB), each in a fresh process with the Lambda functions' Node options (test/bench/renditions-memory.ts), which reads the file as the function reads an original from S3 (once, into a buffer of its size); "RSS before" is with the modules loaded and the original not read yet; peak = the kernel's high-water mark of the process's resident set (VmHWM), Node.js and the modules included. ` +
      `Budgets: the highest peak stays within the renditions function's memory size (${memoryMb} MB, lib/constructs/routeless-functions.ts), which was chosen from this figure; and the largest original costs at most its own size plus ${mib(DECODE_ALLOWANCE_BYTES)} for decoding (libvips reads the TIFF in strips; the Preview's pixels): one copy of the bytes, never two.`,
    columns: ['Image', 'RSS before', 'Peak RSS', 'Time'],
    rows,
    checks: [
      {
        name: 'renditions: peak RSS (MiB) within the function memory',
        measured: peak / 2 ** 20,
        limit: memoryMb,
        kind: 'max',
        shown: mib(peak),
      },
      {
        name: 'largest original: peak RSS beyond the runtime and its bytes (MiB)',
        measured: beyond / 2 ** 20,
        limit: DECODE_ALLOWANCE_BYTES / 2 ** 20,
        kind: 'max',
        shown: mib(beyond),
      },
    ],
  };
}

async function builderPageBytes(): Promise<Figure> {
  // Phone photos (JPEG quality 85), under the push limit of 4 MiB each.
  const photos: string[] = [];
  for (let seed = 0; seed < 20; seed++) photos.push(await photoJpeg(4032, 3024, seed, 85));
  const stack = await startSiteStack();
  try {
    const apiKey = await stack.service.apiKey('renditions-bench', 'library');
    const guids: string[] = [];
    let originalBytes = 0;
    for (const path of photos) {
      const bytes = readFileSync(path);
      originalBytes += bytes.length;
      const form = new FormData();
      form.append('image', new Blob([bytes]), 'photo.jpg');
      const response = await fetch(`${stack.service.url}/library/push`, {
        method: 'POST',
        headers: { 'X-SERVICE-API-Key': apiKey },
        body: form,
      });
      const body = (await response.json()) as { LibraryItem: { ItemGuid: string } };
      if (response.status !== 200) throw new Error(`push answered ${response.status}`);
      guids.push(body.LibraryItem.ItemGuid);
    }
    const minted = await stack.service.request('POST', '/library/builder', { apiKey, json: { Guids: guids } });
    await stack.service.drainEvents();
    const page = await stack.browser.newPage();
    const loaded: Promise<number>[] = [];
    page.on('response', (response) => {
      if (response.request().resourceType() === 'image') loaded.push(response.body().then((body) => body.length));
    });
    await page.goto(minted.body.ProductBuilderUrl);
    await page.waitForFunction('[...document.images].every((image) => image.complete && image.naturalWidth > 0)');
    const imageBytes = (await Promise.all(loaded)).reduce((sum, bytes) => sum + bytes, 0);
    const images = loaded.length;
    await page.close();
    const share = imageBytes / originalBytes;
    return {
      title: '8c. Renditions: what the builder page downloads',
      howToRead:
        '20 phone-size photos (4032 x 3024 JPEG, quality 85) pushed one by one, one product builder URL for all of them, the page opened in headless Chromium (1280 x 720 window, device pixel ratio 1) once their renditions were made; every image response counted. ' +
        "Budget: at most 5 % of the originals' bytes (the page showed the originals before renditions existed).",
      columns: ['Photos', 'Originals', 'Images the page loaded', 'Their bytes', 'Share'],
      rows: [
        [String(photos.length), mib(originalBytes), String(images), mib(imageBytes), `${(share * 100).toFixed(2)} %`],
      ],
      checks: [
        {
          name: "builder page image bytes / the originals' bytes (20 phone photos)",
          measured: share,
          limit: 0.05,
          kind: 'max',
          shown: `${(share * 100).toFixed(2)} %`,
        },
      ],
    };
  } finally {
    await stack.close();
  }
}

export async function run(): Promise<Figure[]> {
  return [await speed(), await memory(), await builderPageBytes()];
}
