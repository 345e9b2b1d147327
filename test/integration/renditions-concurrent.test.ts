/**
 * Renditions of pushes made at the same moment over HTTP: three HEVC HEICs (1200 x 900, 640 x 480, and
 * 900 x 1200 turned by `irot`), a JPEG and a TIFF, each pushed twice (two multi pushes at once), every image of its own solid-coloured
 * quadrants (test/support/quadrants.ts). Every item's Preview and Thumbnail must have its own displayed size
 * and its own pixels. From source the queue hands two messages at a time to the renditions handler in the
 * one process (lib/local/event-delivery.ts; lib/local/source-invocations.ts declares the process
 * concurrent, AWS_LAMBDA_MAX_CONCURRENCY), as `npm start` runs it, so HEVC decodes are asked for side by side
 * of the one decoder worker (functions/renditions/heif-decoder.ts). From the bundles, each invocation has an
 * execution environment of its own, as the deployed function has (lib/local/bundles/function-process.ts):
 * the same renditions, decoded in separate processes.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { decidedItem, pushFiles } from '../support/library-push.ts';
import {
  expectQuadrantsOf,
  quadrantColours,
  quadrantHeics,
  quadrantImage,
  type QuadrantImage,
} from '../support/quadrants.ts';

let service: TestService;
let apiKey: string;

beforeAll(async () => {
  service = await startTestService();
  apiKey = await service.apiKey('renditions-concurrent-test', 'library');
}, 60_000);

afterAll(async () => {
  await service?.close();
});

/** `width` x `height` fitted inside a square of `longSide`, never enlarged, as the renditions are. */
function fitted(image: QuadrantImage, longSide: number): [number, number] {
  const scale = Math.min(1, longSide / Math.max(image.width, image.height));
  return [Math.round(image.width * scale), Math.round(image.height * scale)];
}

describe('renditions of pushes made at the same moment', () => {
  it(
    'three HEICs, a JPEG and a TIFF, twice each: every rendition has its own size and pixels',
    { timeout: 120_000 },
    async () => {
      const [wide, small, turned] = quadrantHeics() as [QuadrantImage, QuadrantImage, QuadrantImage];
      const jpeg = await quadrantImage('jpeg', 800, 640, [
        [255, 255, 255],
        [255, 0, 0],
        [0, 0, 0],
        [0, 0, 255],
      ]);
      const tiff = await quadrantImage('tiff', 600, 1000, [
        [0, 255, 0],
        [0, 0, 0],
        [255, 0, 255],
        [255, 255, 255],
      ]);
      // Two multi pushes at once: their events are handled side by side, each item after the other, and
      // the HEICs come in another order in each, so different ones are decoded at the same moment.
      const pushes = [
        [wide, small, turned, jpeg, tiff],
        [small, turned, wide, tiff, jpeg],
      ];
      const pushed = pushes.flat();
      const itemGuids = (
        await Promise.all(pushes.map(async (files) => (await pushFiles(service.url, apiKey, files)).itemGuids))
      ).flat();
      for (const [index, itemGuid] of itemGuids.entries()) {
        const image = pushed[index]!;
        const item = await decidedItem(service, apiKey, itemGuid);
        expect(item.Renditions.Status, `${image.name}: ${JSON.stringify(item.Renditions)}`).toBe('Ready');
        for (const [name, longSide] of [
          ['Preview', 1600],
          ['Thumbnail', 320],
        ] as const) {
          const rendition = item.Renditions[name];
          const what = `push ${index} (${image.name}), ${name}`;
          expect([rendition.Width, rendition.Height], what).toEqual(fitted(image, longSide));
          const response = await fetch(rendition.Url);
          expect(response.status, what).toBe(200);
          const { data, info } = await sharp(Buffer.from(await response.arrayBuffer()))
            .removeAlpha()
            .raw()
            .toBuffer({ resolveWithObject: true });
          expect([info.width, info.height], what).toEqual([rendition.Width, rendition.Height]);
          expectQuadrantsOf(image, quadrantColours(data, info.width, info.height, info.channels), what);
        }
      }
    },
  );
});
