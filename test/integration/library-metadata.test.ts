/**
 * Image metadata over HTTP against the local stack, with the real files of test/fixtures/images (made by
 * its make-fixtures.sh with ImageMagick, libjpeg-turbo, exiftool, cwebp, heif-enc): what a push records is
 * what GET /library/{itemGuid} answers, and a file whose header cannot be read stores nothing.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { png } from '../support/images.ts';
import { snapshotStore, storeDiff } from '../support/store-snapshot.ts';

let service: TestService;
let apiKey: string;

const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));
const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();

async function multiPush(files: { name: string; data: Buffer }[]) {
  const form = new FormData();
  for (const file of files) form.append('image', new Blob([file.data]), file.name);
  const response = await fetch(`${service.url}/library/multi/push`, {
    method: 'POST',
    headers: { 'X-SERVICE-API-Key': apiKey },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Library records and objects only: API keys may change between snapshots. */
const libraryChanges = async (before: Awaited<ReturnType<typeof snapshotStore>>) =>
  storeDiff(before, await snapshotStore(service), (key) => key.startsWith('APIKEY'));

beforeAll(async () => {
  service = await startTestService();
  apiKey = await service.apiKey('metadata-test', 'library');
}, 60_000);

afterAll(async () => {
  await service?.close();
});

/** File, type, then Width, Height, Orientation, DpiX, DpiY as displayed (the fixtures' README lists how each was made). */
const EXPECTED: [string, string, number, number, number, number | null][] = [
  ['jpeg-exif-orientation-6.jpg', 'image/jpeg', 20, 30, 6, null],
  ['jpeg-exif-orientation-8.jpg', 'image/jpeg', 20, 30, 8, null],
  ['jpeg-exif-then-icc-60k.jpg', 'image/jpeg', 20, 30, 6, 240],
  ['jpeg-progressive.jpg', 'image/jpeg', 30, 20, 1, null],
  ['png-phys-300dpi.png', 'image/png', 30, 20, 1, 300],
  ['webp-lossy-vp8.webp', 'image/webp', 30, 20, 1, null],
  ['webp-lossless-vp8l.webp', 'image/webp', 30, 20, 1, null],
  ['webp-extended-vp8x-alpha.webp', 'image/webp', 30, 20, 1, null],
  ['heic.heic', 'image/heic', 30, 20, 1, null],
];

describe('metadata of real files', () => {
  it('records displayed size, orientation and density; the push answer keeps its four fields; downloads are exact', async () => {
    const files = EXPECTED.map(([name]) => ({ name, data: fixture(name) }));
    const { status, body } = await multiPush(files);
    expect(status, JSON.stringify(body)).toBe(200);
    for (const item of body.LibraryItems)
      expect(Object.keys(item).sort()).toEqual(['FileMd5', 'FileMimeType', 'FileSize', 'ItemGuid']);

    const reads = await Promise.all(
      body.LibraryItems.map((item: { ItemGuid: string }) =>
        service.request('GET', `/library/${item.ItemGuid}`, { apiKey }),
      ),
    );
    const seen = reads.map((read, index) => {
      const item = read.body.LibraryItem;
      return [EXPECTED[index]![0], item.FileMimeType, item.Width, item.Height, item.Orientation, item.DpiX];
    });
    expect(seen).toEqual(EXPECTED);
    for (const read of reads) expect(read.body.LibraryItem.DpiY).toBe(read.body.LibraryItem.DpiX);

    for (const [index, read] of reads.entries()) {
      const download = await fetch(read.body.LibraryItem.DownloadUrl);
      expect(download.headers.get('content-type'), EXPECTED[index]![0]).toBe(EXPECTED[index]![1]);
      expect(md5(new Uint8Array(await download.arrayBuffer())), EXPECTED[index]![0]).toBe(md5(files[index]!.data));
    }
  });

  it('rates print quality from the displayed size: a portrait photo prints portrait', async () => {
    const { body } = await multiPush([{ name: 'portrait.jpg', data: fixture('jpeg-exif-orientation-6.jpg') }]);
    const read = await service.request(
      'GET',
      `/library/${body.LibraryItems[0].ItemGuid}?printWidthMm=25.4&printHeightMm=16.9`,
      { apiKey },
    );
    // 20 x 30 px displayed on a print turned portrait (16.9 x 25.4 mm): min(20 / 0.665, 30 / 1) = 30 ppi.
    expect(read.body.LibraryItem.PrintQuality).toEqual({ EffectivePpi: 30, Rating: 'Poor' });
  });
});

describe('unreadable headers', () => {
  it('refuses a truncated header with 415 UnreadableImage and stores nothing, alone or beside a good image', async () => {
    const before = await snapshotStore(service);
    const alone = await multiPush([{ name: 'cut.jpg', data: fixture('jpeg-truncated-before-sof.jpg') }]);
    expect(alone.status).toBe(415);
    expect(alone.body.Error.Code).toBe('UnreadableImage');
    const beside = await multiPush([
      { name: 'good.png', data: png(3, 3) },
      { name: 'cut.jpg', data: fixture('jpeg-truncated-before-sof.jpg') },
    ]);
    expect(beside.status).toBe(415);
    expect(beside.body.Error.Failures).toEqual([{ Index: 1, Code: 'UnreadableImage', Reason: expect.any(String) }]);
    expect(await libraryChanges(before)).toEqual([]);
  });

  it('refuses a truncated header at the large-file completion with 415 and deletes the uploaded object', async () => {
    const ticket = (await service.request('POST', '/library/upload', { apiKey })).body;
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.Upload.Fields as Record<string, string>))
      form.append(name, value);
    form.append('file', new Blob([fixture('jpeg-truncated-before-sof.jpg')]), 'cut.jpg');
    expect((await fetch(ticket.Upload.Url, { method: 'POST', body: form })).status).toBeLessThan(300);
    const before = await snapshotStore(service);
    const completed = await service.request('POST', `/library/upload/${ticket.ItemGuid}/complete`, { apiKey });
    expect(completed.status).toBe(415);
    expect(completed.body.Error.Code).toBe('UnreadableImage');
    const changes = await libraryChanges(before);
    expect(changes).toEqual([`object removed: uploads/${ticket.ItemGuid}`]);
  });
});
