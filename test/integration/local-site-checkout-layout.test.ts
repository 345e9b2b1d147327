/**
 * The checkout page of the local site in headless Chromium at a phone's width (375 px) and a desktop's
 * (1280 px): every line shows its project's name (or says it has none), quantity, unit price and line total in
 * the service's currency, and nothing scrolls sideways. Every site page and the API's /docs page name an icon
 * that loads, and no request of theirs answers 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Response } from 'playwright-core';
import { startSiteStack, type SiteStack } from '../support/site.ts';

let stack: SiteStack;
let alice: string;
/** A long name: the longest words a shop's names have, so the phone layout has something to wrap. */
const LONG_NAME = 'Photo book A4 landscape, 24 pages, lay-flat binding with a linen cover and gold embossing';
/** Every answer a page got: its URL and status. */
const answers: { url: string; status: number }[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  stack = await startSiteStack();
  stack.browser.context.on('response', (response: Response) =>
    answers.push({ url: response.url(), status: response.status() }),
  );
  alice = await stack.service.token('alice');
});
afterAll(() => stack?.close());

async function checkoutOf(lines: [string, number][]): Promise<string> {
  const basketGuid = (await stack.service.request('POST', '/basket', { token: alice })).body.Guid as string;
  for (const [ProjectGuid, Quantity] of lines)
    await stack.service.request('POST', `/basket/${basketGuid}/line`, {
      token: alice,
      json: { ProjectGuid, Quantity },
    });
  return (await stack.service.request('POST', `/basket/${basketGuid}/checkout`, { token: alice })).body
    .CheckoutUrl as string;
}

async function newPage(width: number): Promise<Page> {
  const page = await stack.browser.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${page.url()}: ${message.text()}`);
  });
  await page.setViewportSize({ width, height: 800 });
  return page;
}

/** What a row shows, cell by cell, as the shopper reads it. */
const rowsOf = (page: Page) =>
  page.locator('tbody tr').evaluateAll((rows) =>
    rows.map((row) => ({
      name: row.querySelector('[data-name]')?.textContent,
      guid: row.querySelector('small.guid')?.textContent,
      quantity: row.querySelector('[data-quantity]')?.textContent,
      unitPrice: row.querySelector('[data-unit-price]')?.textContent,
      lineTotal: row.querySelector('[data-line-total]')?.textContent,
    })),
  );

/** The page is no wider than the window: nothing scrolls sideways. */
const scrollsSideways = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth');

/** The icon the page names loads as an image. */
async function expectIconLoads(page: Page): Promise<void> {
  const href = (await page.evaluate(
    'document.querySelector(\'link[rel="icon"]\') && document.querySelector(\'link[rel="icon"]\').href',
  )) as string | null;
  expect(href, `${page.url()} names an icon`).toBeTruthy();
  const icon = await fetch(href as string);
  expect([href, icon.status]).toEqual([href, 200]);
  expect(icon.headers.get('content-type')).toMatch(/^image\//);
}

describe('checkout page layout and icons in a browser', { timeout: 180_000 }, () => {
  it('shows name, quantity, unit price and line total in EUR at 375 px and at 1280 px, without sideways scrolling', async () => {
    const photoBook = await stack.service.project(29.99, 1, LONG_NAME);
    const calendar = await stack.service.project(19.99, 1, 'Wall calendar 2027');
    const unnamed = await stack.service.project(4.5);
    const checkoutUrl = await checkoutOf([
      [photoBook, 2],
      [calendar, 1],
      [unnamed, 3],
    ]);
    const expected = [
      { name: LONG_NAME, guid: `${photoBook.slice(0, 8)}…`, quantity: '2', unitPrice: '€29.99', lineTotal: '€59.98' },
      {
        name: 'Wall calendar 2027',
        guid: `${calendar.slice(0, 8)}…`,
        quantity: '1',
        unitPrice: '€19.99',
        lineTotal: '€19.99',
      },
      {
        name: 'Unnamed product',
        guid: `${unnamed.slice(0, 8)}…`,
        quantity: '3',
        unitPrice: '€4.50',
        lineTotal: '€13.50',
      },
    ];
    for (const width of [375, 1280]) {
      const page = await newPage(width);
      expect((await page.goto(checkoutUrl))?.status()).toBe(200);
      expect(await rowsOf(page)).toEqual(expected);
      expect(await page.locator('[data-total]').textContent()).toBe('€93.47');
      expect(await scrollsSideways(page), `${width} px scrolls sideways`).toBe(false);
      // The figures are labelled on the phone, where the column headings are hidden.
      if (width === 375)
        expect(
          await page.evaluate(`getComputedStyle(document.querySelector('[data-unit-price]'), '::before').content`),
        ).toBe('"Unit price"');
      await expectIconLoads(page);
      await stack.browser.screenshot(page, `checkout-${width}`);
      await page.close();
    }
  });

  it('names an icon that loads on every site page and on /docs, and no page request answers 404', async () => {
    const project = await stack.service.project(12, 1, 'Poster 50x70');
    const checkoutUrl = await checkoutOf([[project, 1]]);
    const page = await newPage(1280);
    await page.goto(checkoutUrl);
    await Promise.all([page.waitForURL(/\/confirmation$/), page.getByRole('button', { name: /Pay/ }).click()]);
    await expectIconLoads(page);
    // The confirmation lists what was paid for, named.
    expect(await page.locator('[data-name]').textContent()).toBe('Poster 50x70');

    for (const [path, status] of [
      [new URL(checkoutUrl).pathname, 200],
      [`/builder/${'0'.repeat(32)}`, 404],
      ['/upload', 200],
      ['/no-such-page', 404],
    ] as const) {
      expect((await page.goto(`${stack.site.url}${path}`))?.status()).toBe(status);
      await expectIconLoads(page);
    }
    for (const iconPath of ['/favicon.ico', '/favicon.svg']) {
      const icon = await fetch(`${stack.site.url}${iconPath}`);
      expect([iconPath, icon.status, icon.headers.get('content-type')]).toEqual([iconPath, 200, 'image/svg+xml']);
    }
    expect((await page.goto(`${stack.service.url}/docs`))?.status()).toBe(200);
    await page.getByText('Baskets', { exact: false }).first().waitFor();
    await expectIconLoads(page);
    await page.close();

    // Only the pages asked to be 404 are; nothing they loaded (an icon above all) is.
    const missing = answers.filter(
      (answer) => answer.status === 404 && !/\/builder\/0{32}$|\/no-such-page$/.test(answer.url),
    );
    expect(missing).toEqual([]);
    // Chromium fetched each origin's icon itself (once: it caches it), and got it.
    const icons = answers.filter((answer) => /\/favicon[^/]*$/.test(answer.url));
    expect(icons.map((icon) => [new URL(icon.url).pathname, icon.status])).toEqual(
      expect.arrayContaining([
        ['/favicon.svg', 200],
        ['/docs/favicon-32x32.png', 200],
      ]),
    );
    expect(icons.filter((icon) => icon.status !== 200)).toEqual([]);
    // The console reports the two pages' own 404s (the document), never an icon's.
    expect(consoleErrors.filter((error) => /favicon|icon/i.test(error))).toEqual([]);
  });
});
