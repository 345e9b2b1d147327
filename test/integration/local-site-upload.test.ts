/**
 * The local site's upload page in headless Chromium: Uppy's Dashboard and `@uppy/aws-s3` (a client
 * nobody here wrote) with the client package's adapter, against the real local service and the local S3.
 * A 40 MB photo goes up in 5 MiB parts, each stored once, and the builder page it links to shows the photo.
 *
 * Nothing intercepts the page's requests: for a page with Playwright routes, Playwright answers every CORS
 * preflight itself, allowing everything, so the local S3's own answer to the part URLs' preflights would go
 * untested (and a page that a real browser cannot upload from would pass). The test checks that the local
 * S3 answered and allowed each part's preflight, and a refusal ends it at once.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSiteStack, type SiteStack } from '../support/site.ts';
import { photoOfSize } from '../support/images.ts';

const MIB = 1024 * 1024;
const PHOTO_BYTES = 40 * 1000 * 1000;
/** Parts of 5 MiB: 40 MB is 8 of them (7 whole ones and 5,299,712 bytes). */
const PART_COUNT = Math.ceil(PHOTO_BYTES / (5 * MIB));

let stack: SiteStack;
let dir: string;

beforeAll(async () => {
  stack = await startSiteStack();
  dir = mkdtempSync(join(tmpdir(), 'upload-page-'));
});
afterAll(async () => {
  await stack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const partNumberOf = (url: string) => new URL(url).searchParams.get('partNumber');

describe('the upload page in a browser', { timeout: 240_000 }, () => {
  it('uploads a 40 MB photo in 5 MiB parts, each preflighted by the local S3 and stored once, and links to the builder page showing it', async () => {
    const photo = photoOfSize(PHOTO_BYTES, 40);
    const file = join(dir, 'holiday.jpg');
    writeFileSync(file, photo);
    const page = await stack.browser.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });

    // Part PUTs go straight to the local S3 (its own origin); each is counted once it is stored.
    const stored = new Map<string, number>();
    page.on('response', (response) => {
      const part = partNumberOf(response.url());
      if (response.request().method() === 'PUT' && part !== null && response.status() === 200)
        stored.set(part, (stored.get(part) ?? 0) + 1);
    });
    const devtools = await stack.browser.context.newCDPSession(page);
    // The local S3's answers to the preflights of the part URLs, as the browser received them; a refusal
    // ends the test at once (the page would wait for ever).
    const preflightIds = new Set<string>();
    const preflightAnswers: { part: string | null; status: number }[] = [];
    let refused: (error: Error) => void = () => {};
    const preflightRefused = new Promise<never>((_, reject) => (refused = reject));
    preflightRefused.catch(() => {}); // awaited below; a refusal after the upload is caught by the checks
    devtools.on('Network.requestWillBeSent', (event) => {
      if (event.initiator.type === 'preflight') preflightIds.add(event.requestId);
    });
    devtools.on('Network.responseReceived', ({ requestId, response }) => {
      if (!preflightIds.has(requestId)) return;
      preflightAnswers.push({ part: partNumberOf(response.url), status: response.status });
      if (response.status !== 200) refused(new Error(`the local S3 refused a part's preflight: ${response.status}`));
    });
    await devtools.send('Network.enable');

    const answer = await page.goto(`${stack.site.url}/upload`);
    expect(answer?.status()).toBe(200);
    const csp = answer?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await page.title()).toBe('Upload photos · Local checkout');

    await page.locator('.uppy-Dashboard-input').first().setInputFiles(file);
    await page.getByRole('button', { name: /^Upload 1 file$/ }).click();
    const link = page.getByRole('link', { name: 'Open your photo in the product builder' });
    await Promise.race([link.waitFor({ state: 'visible', timeout: 180_000 }), preflightRefused]);

    // Every part's URL was preflighted by the local S3 (unsigned, its presigned query ignored) and allowed.
    expect(new Set(preflightAnswers.map(({ part }) => Number(part)))).toEqual(
      new Set(Array.from({ length: PART_COUNT }, (_, index) => index + 1)),
    );
    expect(preflightAnswers.filter(({ status }) => status !== 200)).toEqual([]);
    expect([...stored.keys()].map(Number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: PART_COUNT }, (_, index) => index + 1),
    );
    // Every part stored exactly once.
    expect([...stored.values()].every((count) => count === 1)).toBe(true);
    await stack.browser.screenshot(page, 'upload-done');

    const href = (await link.getAttribute('href')) as string;
    expect(href.startsWith(`${stack.site.url}/builder/`)).toBe(true);
    await link.click();
    await page.waitForURL(href);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Product builder');
    const image = page.getByRole('img', { name: /Photo 1, 30 × 20 pixels/ });
    await image.waitFor();
    // Decoded by the browser: the photo itself, not a broken image.
    expect(
      await image.evaluate((img) => {
        const element = img as unknown as { decode(): Promise<void>; naturalWidth: number };
        return element.decode().then(() => element.naturalWidth);
      }),
    ).toBe(30);
    await stack.browser.screenshot(page, 'upload-builder');

    // What the library holds is the file, byte for byte.
    const token = href.split('/').pop() as string;
    const internal = await stack.service.apiKey('upload-check', 'site');
    const builder = await stack.service.request('GET', `/builder/${token}`, { apiKey: internal });
    expect(builder.body.Builder.Items[0]).toMatchObject({
      FileSize: PHOTO_BYTES,
      FileMd5: createHash('md5').update(photo).digest('hex').toUpperCase(),
    });
    expect(consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
    expect(stack.browser.foreignRequests).toEqual([]);
  });
});
