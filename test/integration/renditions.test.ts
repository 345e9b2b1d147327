/**
 * Renditions over HTTP against the local stack: every accepted format pushed as a real file (the fixtures
 * of test/fixtures/images, made by make-fixtures.sh and make-rendition-fixtures.sh) becomes Ready with a
 * Thumbnail and a Preview that are upright, sRGB, WebP and free of metadata; images that cannot be decoded
 * and decompression bombs become Failed and stay readable. The renditions are made by the same handler as
 * in AWS, on the same event, in process (lib/local/event-delivery.ts).
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { pngBomb } from '../support/images.ts';

let service: TestService;
let apiKey: string;
let internalKey: string;

const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));
const tokenOf = (url: string) => url.split('/').pop() as string;

async function push(files: { name: string; bytes: Buffer }[]): Promise<{ body: any; itemGuids: string[] }> {
  const form = new FormData();
  for (const [index, file] of files.entries())
    form.append(files.length === 1 ? 'image' : `image${index}`, new Blob([file.bytes]), file.name);
  const response = await fetch(`${service.url}${files.length === 1 ? '/library/push' : '/library/multi/push'}`, {
    method: 'POST',
    headers: { 'X-SERVICE-API-Key': apiKey },
    body: form,
  });
  const body = (await response.json()) as any;
  expect(response.status, JSON.stringify(body)).toBe(200);
  const items = (body.LibraryItems ?? [body.LibraryItem]) as { ItemGuid: string }[];
  return { body, itemGuids: items.map((item) => item.ItemGuid) };
}

/** The item once its renditions are decided (the in-process queue has handled the commit's event). */
async function decided(itemGuid: string): Promise<any> {
  await service.drainEvents();
  const read = await service.request('GET', `/library/${itemGuid}`, { apiKey });
  expect(read.status, read.text).toBe(200);
  return read.body.LibraryItem;
}

async function fetchRendition(rendition: { Url: string; ContentType: string }) {
  const response = await fetch(rendition.Url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(rendition.ContentType);
  const bytes = Buffer.from(await response.arrayBuffer());
  return { bytes, metadata: await sharp(bytes).metadata() };
}

/** Pixel (x, y) of an encoded image, RGBA. */
async function pixelAt(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 4;
  return [...data.subarray(at, at + 4)];
}

beforeAll(async () => {
  service = await startTestService();
  apiKey = await service.apiKey('renditions-test', 'library');
  internalKey = await service.apiKey('renditions-test-builder-site', 'internal');
}, 60_000);

afterAll(async () => {
  await service?.close();
});

describe('renditions of every accepted format', () => {
  const formats = [
    'jpeg-baseline-jfif-72dpi.jpg',
    'jpeg-progressive.jpg',
    'jpeg-cmyk-adobe.jpg',
    'png-phys-300dpi.png', // 16-bit
    'rendition-png-alpha.png',
    'gif.gif',
    'webp-lossy-vp8.webp',
    'webp-lossless-vp8l.webp',
    'webp-extended-vp8x-alpha.webp',
    'tiff-le-300dpi.tif',
    'tiff-be-dpcm.tif',
    'heic.heic', // HEVC, a grid of tiles, as iPhones write them
    'avif.avif',
  ];

  it.each(formats)(
    '%s: Ready, WebP Thumbnail and Preview of the displayed size (small images are not upscaled)',
    async (name) => {
      const { itemGuids } = await push([{ name, bytes: fixture(name) }]);
      const item = await decided(itemGuids[0]!);
      expect(item.Renditions.Status, JSON.stringify(item.Renditions)).toBe('Ready');
      for (const rendition of [item.Renditions.Thumbnail, item.Renditions.Preview]) {
        expect(rendition).toMatchObject({ Width: item.Width, Height: item.Height, ContentType: 'image/webp' });
        const { metadata } = await fetchRendition(rendition);
        expect([metadata.format, metadata.width, metadata.height]).toEqual(['webp', item.Width, item.Height]);
        expect([metadata.exif, metadata.icc, metadata.xmp]).toEqual([undefined, undefined, undefined]);
      }
    },
  );

  it('a multi push: every item gets its renditions', async () => {
    const { itemGuids } = await push(
      ['heic.heic', 'tiff-be-orientation-6.tif', 'jpeg-exif-orientation-8.jpg'].map((name) => ({
        name,
        bytes: fixture(name),
      })),
    );
    for (const itemGuid of itemGuids) expect((await decided(itemGuid)).Renditions.Status).toBe('Ready');
  });
});

describe('what a rendition shows', () => {
  it('orientation 6 applied, long sides 320 and 1600, GPS, XMP, IPTC and comments gone', async () => {
    const original = fixture('rendition-gps-orientation-6.jpg');
    expect(original.includes('where I live')).toBe(true);
    const { itemGuids } = await push([{ name: 'photo.jpg', bytes: original }]);
    const item = await decided(itemGuids[0]!);
    expect([item.Width, item.Height, item.Orientation]).toEqual([1500, 2000, 6]);
    expect(item.Renditions.Thumbnail).toMatchObject({ Width: 240, Height: 320 });
    expect(item.Renditions.Preview).toMatchObject({ Width: 1200, Height: 1600 });
    for (const rendition of [item.Renditions.Thumbnail, item.Renditions.Preview]) {
      const { bytes, metadata } = await fetchRendition(rendition);
      expect([metadata.width, metadata.height]).toEqual([rendition.Width, rendition.Height]);
      expect([metadata.exif, metadata.xmp, metadata.iptc, metadata.orientation]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      for (const trace of ['Exif', 'GPS', 'where I live', 'secret', 'fixture'])
        expect(bytes.includes(trace), trace).toBe(false);
      // The stored gradient runs from #d84 (top) to #27a (bottom); turned 90 degrees clockwise, the top
      // row becomes the right column.
      const [left, right] = [await pixelAt(bytes, 0, 10), await pixelAt(bytes, rendition.Width - 1, 10)];
      expect(right[0]! - left[0]!).toBeGreaterThan(100);
    }
  });

  it('orientation 8: 30 x 20 stored, 20 x 30 shown', async () => {
    const { itemGuids } = await push([{ name: 'eight.jpg', bytes: fixture('jpeg-exif-orientation-8.jpg') }]);
    const item = await decided(itemGuids[0]!);
    expect(item.Renditions.Preview).toMatchObject({ Width: 20, Height: 30 });
    expect(item.Renditions.Thumbnail).toMatchObject({ Width: 20, Height: 30 });
  });

  it('a Display P3 photo is converted to sRGB through its profile (P3 red stays red)', async () => {
    const original = fixture('rendition-display-p3.jpg');
    // The stored values, read without the profile, are not sRGB red.
    const stored = await sharp(original, { ignoreIcc: true }).raw().toBuffer();
    expect(stored[1]!).toBeGreaterThan(30);
    const { itemGuids } = await push([{ name: 'p3.jpg', bytes: original }]);
    const item = await decided(itemGuids[0]!);
    const { bytes } = await fetchRendition(item.Renditions.Preview);
    const [red, green, blue] = await pixelAt(bytes, 32, 24);
    expect(red!).toBeGreaterThan(245);
    expect(green!).toBeLessThan(15);
    expect(blue!).toBeLessThan(15);
  });

  it('a PNG with alpha keeps its transparency', async () => {
    const { itemGuids } = await push([{ name: 'alpha.png', bytes: fixture('rendition-png-alpha.png') }]);
    const item = await decided(itemGuids[0]!);
    const { bytes, metadata } = await fetchRendition(item.Renditions.Thumbnail);
    expect(metadata.hasAlpha).toBe(true);
    expect((await pixelAt(bytes, 2, 15))[3]).toBe(0);
    expect((await pixelAt(bytes, 37, 15))[3]).toBe(255);
  });

  it('a GIF shows its first frame; a 1 x 1 image stays 1 x 1', async () => {
    const { itemGuids } = await push([
      { name: 'animated.gif', bytes: fixture('rendition-animated.gif') },
      { name: 'one.png', bytes: fixture('rendition-1x1.png') },
    ]);
    const gif = await decided(itemGuids[0]!);
    const [red, green] = await pixelAt((await fetchRendition(gif.Renditions.Preview)).bytes, 15, 10);
    expect(red!).toBeGreaterThan(200);
    expect(green!).toBeLessThan(50);
    const one = await decided(itemGuids[1]!);
    expect(one.Renditions.Thumbnail).toMatchObject({ Width: 1, Height: 1 });
    expect(one.Renditions.Preview).toMatchObject({ Width: 1, Height: 1 });
  });
});

describe('images without renditions', () => {
  it('a header-valid file whose pixels do not decode: Failed with a reason, the item stays readable', async () => {
    const original = fixture('rendition-corrupt-pixels.png');
    const { itemGuids } = await push([{ name: 'corrupt.png', bytes: original }]);
    const item = await decided(itemGuids[0]!);
    expect(item.Renditions.Status).toBe('Failed');
    expect(item.Renditions.Reason).toMatch(/could not be decoded/);
    expect(item.Renditions.Thumbnail).toBeUndefined();
    expect(Buffer.from(await (await fetch(item.DownloadUrl)).arrayBuffer()).equals(original)).toBe(true);
  });

  it('a decompression bomb (400 megapixels in a small PNG): Failed without decoding it', async () => {
    const before = process.memoryUsage().rss;
    const { itemGuids } = await push([{ name: 'bomb.png', bytes: pngBomb() }]);
    const item = await decided(itemGuids[0]!);
    expect(item.Renditions.Status).toBe('Failed');
    expect(item.Renditions.Reason).toMatch(/20000 x 20000 pixels .*more than the 100 megapixels/);
    // Decoded, its pixels alone would take 1.2 GB.
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });
});

describe('where Renditions are answered', () => {
  it('push and pull answers keep their four fields; GET /builder/{token} items carry Renditions', async () => {
    const { body, itemGuids } = await push([{ name: 'a.jpg', bytes: fixture('jpeg-progressive.jpg') }]);
    expect(Object.keys(body.LibraryItem).sort()).toEqual(['FileMd5', 'FileMimeType', 'FileSize', 'ItemGuid']);
    await service.drainEvents();
    const builder = await service.request('GET', `/builder/${tokenOf(body.ProductBuilderUrl)}`, {
      apiKey: internalKey,
    });
    expect(builder.status).toBe(200);
    expect(builder.body.Builder.Items.map((item: any) => [item.ItemGuid, item.Renditions.Status])).toEqual([
      [itemGuids[0], 'Ready'],
    ]);
  });

  it('the claim and GET /library answer the same Renditions', async () => {
    const { body } = await push([{ name: 'a.jpg', bytes: fixture('jpeg-baseline-jfif-72dpi.jpg') }]);
    await service.drainEvents();
    const token = await service.token(`renditions-user-${Date.now()}`);
    const claim = await service.request('POST', '/library/claim', {
      token,
      json: { ProductBuilderUrl: body.ProductBuilderUrl },
    });
    expect(claim.status, claim.text).toBe(200);
    expect(claim.body.LibraryItems[0].Renditions.Status).toBe('Ready');
    const list = await service.request('GET', '/library', { token });
    expect(list.body.LibraryItems[0].Renditions).toMatchObject({ Status: 'Ready', Preview: { Width: 30, Height: 20 } });
    await fetchRendition(list.body.LibraryItems[0].Renditions.Preview);
  });
});
