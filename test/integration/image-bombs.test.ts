/**
 * Decompression bombs and giant originals over HTTP against the local stack, built as an attacker would
 * (test/support/heif-bombs.ts: HEIF grids over one real 2048 x 2048 tile, under 10 KB each): the pixel limit
 * holds for what the decoder would decode, a HEIF with two sizes is refused at the door, the honest image
 * pushed beside nineteen bombs is Ready at once. Runs from source and from the synthesized assets (the
 * renditions function in its own process). A giant original: renditions-giant-original.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { decidedItem, pushFiles } from '../support/library-push.ts';
import { bombTile, heifGridBomb } from '../support/heif-bombs.ts';
import { jpeg } from '../support/images.ts';
import { multipartBody } from '../support/multipart.ts';
import { snapshotStore } from '../support/store-snapshot.ts';

let service: TestService;
let apiKey: string;

beforeAll(async () => {
  service = await startTestService();
  apiKey = await service.apiKey('image-bombs-test', 'library');
}, 120_000);
afterAll(async () => {
  await service?.close();
});

const hevcBomb = (cells: number) => heifGridBomb(bombTile('hevc'), { cells, disguise: 'clap' });
const avifBomb = (cells: number) => heifGridBomb(bombTile('av1'), { cells, disguise: 'clap' });

const renditionsOf = (itemGuid: string) => decidedItem(service, apiKey, itemGuid);

describe('HEIF grids that display 64 x 64 pixels and decode hundreds of megapixels', { timeout: 120_000 }, () => {
  it.each([
    ['an 8 x 8 grid of one HEVC tile, cropped (clap)', () => hevcBomb(8), 'image/heic', '268.44'],
    ['a 12 x 12 grid of one HEVC tile, cropped (clap)', () => hevcBomb(12), 'image/heic', '603.98'],
    ['an 8 x 8 grid of one AV1 tile, cropped (clap)', () => avifBomb(8), 'image/avif', '268.44'],
  ])('%s: Failed before any decode, its displayed size recorded', async (_name, bomb, type, megapixels) => {
    const bytes = bomb();
    expect(bytes.length).toBeLessThan(10_000);
    const { itemGuids } = await pushFiles(service.url, apiKey, [{ bytes, name: 'bomb.heic' }]);
    const item = await renditionsOf(itemGuids[0]!);
    expect(item).toMatchObject({ FileMimeType: type, Width: 64, Height: 64 });
    expect(item.Renditions).toEqual({
      Status: 'Failed',
      Reason: `The image shows 64 x 64 pixels but decodes ${megapixels} megapixels, more than the 100 megapixels renditions are made of.`,
    });
  });

  it('a grid with a second ispe (64 x 64 after the true 16384 x 16384): 415 at the door, nothing stored', async () => {
    const before = await snapshotStore(service);
    const form = multipartBody([
      {
        name: 'image',
        filename: 'bomb.heic',
        data: heifGridBomb(bombTile('hevc'), { cells: 8, disguise: 'second-ispe' }),
      },
    ]);
    const answer = await service.request('POST', '/library/push', {
      apiKey,
      headers: { 'Content-Type': form.contentType },
      body: form.body,
    });
    expect(answer.status, answer.text).toBe(415);
    expect(answer.body.Error).toMatchObject({
      Code: 'UnreadableImage',
      Message: 'The image header could not be read: item 1 declares 2 image sizes (ispe).',
    });
    const after = await snapshotStore(service);
    expect([...after.objects.keys()]).toEqual([...before.objects.keys()]);
  });

  it('nineteen bombs and one honest JPEG in one push: the JPEG is Ready within 10 s, every bomb Failed', async () => {
    const bombs = Array.from({ length: 19 }, (_, index) =>
      index % 3 === 2 ? avifBomb(8 + (index % 5)) : hevcBomb(8 + (index % 5)),
    );
    const { itemGuids } = await pushFiles(service.url, apiKey, [
      ...bombs.map((bytes, index) => ({ bytes, name: `bomb${index}.heic` })),
      { bytes: jpeg('honest'), name: 'honest.jpg' },
    ]);
    const started = Date.now(); // from the push's acknowledgement
    const honest = await renditionsOf(itemGuids[19]!);
    expect(honest.Renditions.Status).toBe('Ready');
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const itemGuid of itemGuids.slice(0, 19))
      expect((await renditionsOf(itemGuid)).Renditions.Reason).toMatch(/^The image shows 64 x 64 pixels but decodes/);
  });
});
