/**
 * Renditions over HTTP against the local stack: every accepted format pushed as a real file (the fixtures
 * of test/fixtures/images, made by make-fixtures.sh and make-rendition-fixtures.sh) becomes Ready with a
 * Thumbnail and a Preview that are upright, sRGB, WebP and free of metadata; images that cannot be decoded
 * and decompression bombs become Failed and stay readable. The renditions are made by the same handler as
 * in AWS, on the same event, in process (lib/local/event-delivery.ts).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessIt } from '../support/bundles.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { pngBomb } from '../support/images.ts';
import { listObjectKeys } from '../support/store-snapshot.ts';
import { decidedItem, pushFiles } from '../support/library-push.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';
import { publishEvent } from '../../functions/shared/events.ts';
import { itemsAddedEvent } from '../../functions/contracts/library-events.ts';

let service: TestService;
let apiKey: string;
let internalKey: string;
let images: Server;
let imageBase: string;
let table: DynamoDBDocumentClient;
let bucket: S3Client;

const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));
const tokenOf = (url: string) => url.split('/').pop() as string;

const push = (files: { name: string; bytes: Buffer }[]) => pushFiles(service.url, apiKey, files);

/** The item once its renditions are decided (the in-process queue has handled the commit's event). */
const decided = (itemGuid: string) => decidedItem(service, apiKey, itemGuid);

async function fetchRendition(rendition: { Url: string; ContentType: string }) {
  const response = await fetch(rendition.Url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(rendition.ContentType);
  // Shown, not saved, when a browser is sent to it: the service's encoder wrote every byte.
  expect(response.headers.get('content-disposition')).toBe('inline');
  const bytes = Buffer.from(await response.arrayBuffer());
  return { bytes, metadata: await sharp(bytes).metadata() };
}

/** Pixel (x, y) of an encoded image, RGBA. */
async function pixelAt(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 4;
  return [...data.subarray(at, at + 4)];
}

/** Straight to the local storage, as an operator would: to put an item back into the state renditions start from. */
const credentials = {
  region: LOCAL_AWS_ENV.AWS_REGION,
  credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
};
const itemKey = (itemGuid: string) => ({ PK: `LIBITEM#${itemGuid}`, SK: 'LIBITEM' });
const itemRecord = async (itemGuid: string) =>
  (
    await table.send(
      new GetCommand({ TableName: process.env.TABLE_NAME, Key: itemKey(itemGuid), ConsistentRead: true }),
    )
  ).Item!;
/** The item as it was before its renditions were made: no state on its record (its library entry keeps its own). */
const forgetRenditions = (itemGuid: string) =>
  table.send(
    new UpdateCommand({
      TableName: process.env.TABLE_NAME,
      Key: itemKey(itemGuid),
      UpdateExpression: 'REMOVE renditions',
    }),
  );
/** The commit's event once more, as a redelivery (or the outbox publisher after a retry) would hand it over. */
const redeliver = async (...itemGuids: string[]) => {
  await publishEvent(
    itemsAddedEvent({ apiKeyId: 'test', anonymousUserId: '0'.repeat(32), createdAt: Date.now() }, itemGuids),
  );
  await service.drainEvents();
};

beforeAll(async () => {
  images = createServer((request, response) => {
    const name = new URL(request.url ?? '/', 'http://x').pathname.slice(1);
    response.writeHead(200).end(fixture(name));
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  service = await startTestService({ env: { PULL_ALLOW_LOOPBACK: 'true' } });
  apiKey = await service.apiKey('renditions-test', 'library');
  internalKey = await service.apiKey('renditions-test-builder-site', 'site');
  table = DynamoDBDocumentClient.from(new DynamoDBClient({ ...credentials, endpoint: service.storage.dynamoEndpoint }));
  bucket = new S3Client({ ...credentials, endpoint: service.storage.s3Endpoint, forcePathStyle: true });
}, 60_000);

afterAll(async () => {
  await service?.close();
  await new Promise((resolve) => images?.close(resolve));
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

describe('every way in', () => {
  it('pull, multi pull and the large-file completion: their items get renditions too', async () => {
    const pulled = await service.request('POST', '/library/pull', { apiKey, json: { Url: `${imageBase}/heic.heic` } });
    const pulledMany = await service.request('POST', '/library/multi/pull', {
      apiKey,
      json: { Urls: [`${imageBase}/tiff-le-300dpi.tif`, `${imageBase}/avif-irot-90.avif`] },
    });
    expect([pulled.status, pulledMany.status]).toEqual([200, 200]);
    const ticket = (await service.request('POST', '/library/upload', { apiKey })).body;
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.Upload.Fields as Record<string, string>))
      form.append(name, value);
    form.append('file', new Blob([fixture('rendition-gps-orientation-6.jpg')]), 'big.jpg');
    expect((await fetch(ticket.Upload.Url, { method: 'POST', body: form })).status).toBeLessThan(300);
    const completed = await service.request('POST', `/library/upload/${ticket.ItemGuid}/complete`, { apiKey });
    expect(completed.status, completed.text).toBe(200);
    expect(Object.keys(completed.body.LibraryItem).sort()).toEqual(['FileMd5', 'FileMimeType', 'FileSize', 'ItemGuid']);
    const guids = [
      pulled.body.LibraryItem.ItemGuid,
      ...pulledMany.body.LibraryItems.map((item: { ItemGuid: string }) => item.ItemGuid),
      ticket.ItemGuid,
    ];
    const previews = [];
    for (const guid of guids) {
      const { Renditions } = await decided(guid);
      expect(Renditions.Status).toBe('Ready');
      previews.push([Renditions.Preview.Width, Renditions.Preview.Height]);
    }
    // HEIC 30 x 20, TIFF 30 x 20, AVIF turned by its irot to 20 x 30, the upright 1500 x 2000 JPEG at 1600.
    expect(previews).toEqual([
      [30, 20],
      [30, 20],
      [20, 30],
      [1200, 1600],
    ]);
  });
});

describe('deliveries', () => {
  inProcessIt(
    'a repeated or concurrent delivery changes nothing once decided; made again, the same renditions',
    async () => {
      const { itemGuids } = await push([{ name: 'a.png', bytes: fixture('png-no-phys.png') }]);
      const first = await decided(itemGuids[0]!);
      const record = await itemRecord(itemGuids[0]!);
      await Promise.all([redeliver(itemGuids[0]!), redeliver(itemGuids[0]!)]);
      expect(await itemRecord(itemGuids[0]!)).toEqual(record);
      await forgetRenditions(itemGuids[0]!);
      await Promise.all([redeliver(itemGuids[0]!), redeliver(itemGuids[0]!)]);
      expect((await itemRecord(itemGuids[0]!)).renditions).toEqual(record.renditions);
      expect((await decided(itemGuids[0]!)).Renditions.Preview.Width).toBe(first.Renditions.Preview.Width);
    },
  );

  inProcessIt(
    "a failure that is not the image's is retried; the last delivery records Failed, and the item stays readable",
    async () => {
      const { itemGuids } = await push([{ name: 'a.gif', bytes: fixture('gif.gif') }]);
      await service.drainEvents();
      const { objectKey } = await itemRecord(itemGuids[0]!);
      await forgetRenditions(itemGuids[0]!);
      // The original is gone from the bucket: every delivery fails to read it.
      await bucket.send(new DeleteObjectCommand({ Bucket: process.env.BUCKET_NAME, Key: objectKey }));
      await redeliver(itemGuids[0]!);
      const item = await decided(itemGuids[0]!);
      expect(item.Renditions).toEqual({
        Status: 'Failed',
        Reason: 'The renditions could not be made after 3 attempts.',
      });
    },
  );

  inProcessIt(
    'starts that stopped the function are counted on the item: after two, Failed without another try',
    async () => {
      const { itemGuids } = await push([{ name: 'a.png', bytes: fixture('png-no-phys.png') }]);
      await service.drainEvents();
      await forgetRenditions(itemGuids[0]!);
      // As two deliveries that crashed or timed out in the middle of this item leave it.
      const crashedOn = (starts: number) =>
        table.send(
          new UpdateCommand({
            TableName: process.env.TABLE_NAME,
            Key: itemKey(itemGuids[0]!),
            UpdateExpression: 'SET renditionStarts = :starts',
            ExpressionAttributeValues: { ':starts': starts },
          }),
        );
      await crashedOn(1);
      await redeliver(itemGuids[0]!);
      expect((await decided(itemGuids[0]!)).Renditions.Status).toBe('Ready'); // one such start: tried again
      await forgetRenditions(itemGuids[0]!);
      await crashedOn(2);
      await redeliver(itemGuids[0]!);
      expect((await decided(itemGuids[0]!)).Renditions).toEqual({
        Status: 'Failed',
        Reason: 'The renditions could not be made: 2 attempts stopped the function before it answered.',
      });
    },
  );

  inProcessIt("renditions made after the claim reach the user's library entry in the same transaction", async () => {
    const { body, itemGuids } = await push([{ name: 'a.webp', bytes: fixture('webp-lossy-vp8.webp') }]);
    await service.drainEvents();
    await forgetRenditions(itemGuids[0]!);
    const token = await service.token(`renditions-late-${Date.now()}`);
    const claim = await service.request('POST', '/library/claim', {
      token,
      json: { ProductBuilderUrl: body.ProductBuilderUrl },
    });
    expect(claim.body.LibraryItems[0].Renditions).toEqual({ Status: 'Pending' });
    expect((await service.request('GET', '/library', { token })).body.LibraryItems[0].Renditions.Status).toBe(
      'Pending',
    );
    await redeliver(itemGuids[0]!);
    const listed = (await service.request('GET', '/library', { token })).body.LibraryItems[0];
    expect(listed.Renditions).toMatchObject({ Status: 'Ready', Preview: { Width: 30, Height: 20 } });
    expect((await decided(itemGuids[0]!)).Renditions.Status).toBe('Ready');
  });

  inProcessIt('an item deleted while its renditions are made leaves no rendition behind', async () => {
    const { body, itemGuids } = await push([{ name: 'a.tif', bytes: fixture('tiff-le-300dpi.tif') }]);
    await service.drainEvents();
    const { objectKey } = await itemRecord(itemGuids[0]!);
    const token = await service.token(`renditions-erase-${Date.now()}`);
    await service.request('POST', '/library/claim', { token, json: { ProductBuilderUrl: body.ProductBuilderUrl } });
    await forgetRenditions(itemGuids[0]!);
    expect((await service.request('DELETE', `/library/${itemGuids[0]}`, { token })).status).toBe(200);
    await redeliver(itemGuids[0]!);
    expect([...(await listObjectKeys(service.storage)).keys()].filter((key) => key.startsWith(objectKey))).toEqual([]);
  });
});
