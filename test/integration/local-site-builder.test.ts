/**
 * The product builder page in headless Chromium: three pushed images, opened through the ProductBuilderUrl
 * the push answered, load from their renditions with their pixel sizes and print ratings; a HEIC and a
 * TIFF, which no browser shows from the original, show as images.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageHeading as heading, startSiteStack, type SiteStack } from '../support/site.ts';
import { png } from '../support/images.ts';
import { pushFiles } from '../support/library-push.ts';

let stack: SiteStack;
let libraryKey: string;

beforeAll(async () => {
  stack = await startSiteStack();
  libraryKey = await stack.service.apiKey('builder-app', 'library');
});
afterAll(() => stack?.close());

const SIZES: [number, number][] = [
  [120, 80],
  [60, 90],
  [100, 100],
];

/** Pushes the images in one multi push, as a client app does, and answers the ProductBuilderUrl once their renditions are made. */
async function pushedBuilderUrl(
  files = SIZES.map(([width, height], index) => ({ name: `photo${index}.png`, bytes: png(width, height, index) })),
): Promise<string> {
  const { productBuilderUrl } = await pushFiles(stack.service.url, libraryKey, files, { multi: true });
  await stack.service.drainEvents();
  return productBuilderUrl;
}

describe('product builder page in a browser', { timeout: 120_000 }, () => {
  it('shows the three pushed images, loaded, with pixel sizes and the print rating for the chosen size', async () => {
    const builderUrl = await pushedBuilderUrl();
    expect(builderUrl.startsWith(`${stack.site.url}/builder/`)).toBe(true);
    const page = await stack.browser.newPage();
    expect((await page.goto(builderUrl))?.status()).toBe(200);
    expect(await heading(page)).toBe('Product builder');

    const images = page.getByRole('img');
    expect(await images.count()).toBe(3);
    // Loaded means decoded: the browser fetched each rendition and got the image's pixels (never upscaled).
    await page.waitForFunction('[...document.images].every((image) => image.complete && image.naturalWidth > 0)');
    expect(
      await page.evaluate('[...document.images].map((image) => [image.naturalWidth, image.naturalHeight])'),
    ).toEqual(SIZES);
    expect(await page.locator('[data-pixel-size]').allTextContents()).toEqual(['120 × 80', '60 × 90', '100 × 100']);
    expect(await page.locator('[data-rating]').allTextContents()).toEqual([
      'Poor (will look blurry), 20 pixels per inch',
      'Poor (will look blurry), 15 pixels per inch',
      'Poor (will look blurry), 16 pixels per inch',
    ]);
    await stack.browser.screenshot(page, 'builder');

    // Another product size, chosen by its label, with the keyboard-operable form (no script).
    await page.getByLabel('Product size').selectOption({ label: '50 × 70 cm poster' });
    await Promise.all([
      page.waitForURL(/\?size=50x70$/),
      page.getByRole('button', { name: 'Show print quality' }).click(),
    ]);
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe('Print quality for the 50 × 70 cm poster');
    expect(await page.locator('[data-rating]').allTextContents()).toEqual([
      'Poor (will look blurry), 4 pixels per inch',
      'Poor (will look blurry), 3 pixels per inch',
      'Poor (will look blurry), 3 pixels per inch',
    ]);
    await stack.browser.screenshot(page, 'builder-poster');
    await page.close();
    expect(stack.browser.foreignRequests).toEqual([]);
  });

  it('shows a HEIC and a TIFF upload as images, from their WebP renditions', async () => {
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));
    const builderUrl = await pushedBuilderUrl([
      { name: 'iphone.heic', bytes: fixture('heic.heic') },
      { name: 'scan.tif', bytes: fixture('tiff-be-orientation-6.tif') },
    ]);
    const page = await stack.browser.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    expect((await page.goto(builderUrl))?.status()).toBe(200);
    expect(await page.getByRole('img').count()).toBe(2);
    await page.waitForFunction('[...document.images].every((image) => image.complete && image.naturalWidth > 0)');
    expect(
      await page.evaluate('[...document.images].map((image) => [image.naturalWidth, image.naturalHeight])'),
    ).toEqual([
      [30, 20],
      [20, 30],
    ]);
    // Only renditions were fetched, never an original.
    const images = requested.filter((url) => url.startsWith(stack.service.storage.s3Endpoint));
    expect(images.length).toBeGreaterThan(0);
    for (const url of images) expect(new URL(url).pathname).toMatch(/\.(thumbnail|preview)\.webp$/);
    await stack.browser.screenshot(page, 'builder-heic-tiff');
    await page.close();
  });
});
