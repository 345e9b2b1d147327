/**
 * The HEVC decoder under concurrent calls in one process, as Lambda's concurrent invocations
 * (AWS_LAMBDA_MAX_CONCURRENCY) and `npm start` make them: each decode is answered with its own image (size
 * and pixels), a decode stopped by its time limit fails alone, and a decode's time limit runs from its own
 * start, not while it waits for the one before it.
 */
import { describe, expect, it } from 'vitest';
import { decodeHeif, type DecodedPixels } from '../../functions/renditions/heif-decoder.ts';
import { bombTile, heifGridBomb } from '../support/heif-bombs.ts';
import { expectQuadrantsOf, quadrantColours, quadrantHeics, type QuadrantImage } from '../support/quadrants.ts';

const decode = (image: QuadrantImage, timeoutMs = 60_000) =>
  decodeHeif(Buffer.from(image.bytes), {
    timeoutMs,
    maxRssBytes: 2 ** 40,
    expected: { width: image.width, height: image.height },
  });

function expectImage(decoded: DecodedPixels, image: QuadrantImage, what: string): void {
  expect([decoded.width, decoded.height], what).toEqual([image.width, image.height]);
  expectQuadrantsOf(image, quadrantColours(decoded.data, decoded.width, decoded.height, 4), what);
}

describe('HEVC decodes asked for at once', { timeout: 120_000 }, () => {
  it('three different HEICs, twice each: every decode gets its own size and pixels', async () => {
    const images = [...quadrantHeics(), ...quadrantHeics()];
    const decoded = await Promise.all(images.map((image) => decode(image)));
    decoded.forEach((pixels, index) => expectImage(pixels, images[index]!, `decode ${index} (${images[index]!.name})`));
  });

  it('one stopped by its time limit fails alone; one behind it has its whole limit for its own decode', async () => {
    const [wide, small, turned] = quadrantHeics() as [QuadrantImage, QuadrantImage, QuadrantImage];
    // Decoded whole, the 8 x 8 grid of 2048 x 2048 tiles is 268 megapixels: about 1.9 s on a quiet 2-core
    // machine, stopped at 0.5 s, so a machine several times faster still meets the limit.
    const bomb = heifGridBomb(bombTile('hevc'), { cells: 8, disguise: 'clap' });
    const outcomes = await Promise.allSettled([
      decode(wide),
      decodeHeif(bomb, { timeoutMs: 500, maxRssBytes: 2 ** 40, expected: { width: 64, height: 64 } }),
      // It waits at least the bomb's 0.5 s, longer than its own 0.4 s limit: a limit counted from the call would
      // stop it before it started. Its decode takes under 10 ms once libheif is loaded (which the limit excludes).
      decode(small, 400),
      decode(turned),
    ]);
    expect(outcomes.map(({ status }) => status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
      message: 'decoding took longer than 0.5 s',
    });
    [wide, small, turned].forEach((image, index) => {
      const outcome = outcomes[index === 0 ? 0 : index + 1] as PromiseFulfilledResult<DecodedPixels>;
      expectImage(outcome.value, image, image.name);
    });
  });
});
