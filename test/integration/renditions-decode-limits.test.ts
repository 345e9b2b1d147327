/**
 * The limits of a HEVC decode, which runs in a worker thread of the renditions function: past its time limit
 * or the function's memory bound it is stopped and its item Failed, while the function goes on with the
 * other items of the push. Over HTTP with the pixel limit raised so a bomb (test/support/heif-bombs.ts)
 * reaches the decoder and a one-second time limit; the memory bound and the size check on the decoder
 * directly.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessIt } from '../support/bundles.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { pushFiles } from '../support/library-push.ts';
import { bombTile, heifGridBomb } from '../support/heif-bombs.ts';
import { jpeg } from '../support/images.ts';
import { decodeHeif, HeifDecodeFailure } from '../../functions/renditions/heif-decoder.ts';

let service: TestService;
let apiKey: string;

beforeAll(async () => {
  service = await startTestService({
    env: { RENDITION_MAX_PIXELS: String(2_000_000_000), RENDITION_TIMEOUT_SECONDS: '1' },
  });
  apiKey = await service.apiKey('decode-limits-test', 'library');
}, 120_000);
afterAll(async () => {
  await service?.close();
});

const bomb = (cells: number) => heifGridBomb(bombTile('hevc'), { cells, disguise: 'clap' });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the decode to fail');
    },
    (error: unknown) => error as HeifDecodeFailure,
  );

describe('a HEVC decode past its limits', { timeout: 120_000 }, () => {
  it('past the time limit: that item Failed, the JPEG of the same push Ready, the next HEIC decoded again', async () => {
    const { itemGuids } = await pushFiles(service.url, apiKey, [
      { bytes: bomb(8), name: 'slow.heic' },
      { bytes: jpeg('beside a slow one'), name: 'honest.jpg' },
    ]);
    await service.drainEvents();
    const [slow, honest] = await Promise.all(
      itemGuids.map(async (itemGuid) => (await service.request('GET', `/library/${itemGuid}`, { apiKey })).body),
    );
    expect(slow.LibraryItem.Renditions).toEqual({
      Status: 'Failed',
      Reason: 'The image could not be decoded: decoding took longer than 1 s.',
    });
    expect(honest.LibraryItem.Renditions.Status).toBe('Ready');

    // The stopped worker is replaced: an honest HEIC still gets its renditions.
    const heic = readFileSync(new URL('../fixtures/images/heic.heic', import.meta.url));
    const { itemGuids: next } = await pushFiles(service.url, apiKey, [{ bytes: heic, name: 'after.heic' }]);
    await service.drainEvents();
    const after = await service.request('GET', `/library/${next[0]}`, { apiKey });
    expect(after.body.LibraryItem.Renditions.Status).toBe('Ready');
  });

  inProcessIt('past the memory bound: stopped with the bound named, long before it would have finished', async () => {
    const started = Date.now();
    const maxRssBytes = process.memoryUsage.rss() + 256 * 2 ** 20;
    // Decoded whole, the 12 x 12 grid takes about 1.9 GB.
    const error = await failure(
      decodeHeif(bomb(12), { timeoutMs: 60_000, maxRssBytes, expected: { width: 64, height: 64 } }),
    );
    expect(error).toBeInstanceOf(HeifDecodeFailure);
    expect(error.message).toBe(
      `decoding needed more than the ${Math.round(maxRssBytes / 2 ** 20)} MiB of memory it may use`,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  inProcessIt('a decoder that finds another size than the header declares decodes nothing', async () => {
    const heic = readFileSync(new URL('../fixtures/images/heic.heic', import.meta.url));
    const error = await failure(
      decodeHeif(heic, { timeoutMs: 60_000, maxRssBytes: 2 ** 40, expected: { width: 64, height: 64 } }),
    );
    expect(error.message).toBe('libheif finds 30 x 20 pixels where the header declares 64 x 64');
    expect(error.bytes?.length).toBe(heic.length); // handed back, not copied
  });
});
