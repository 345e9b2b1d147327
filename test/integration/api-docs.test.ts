/**
 * GET /docs of the local service: the API reference page and every file it loads come from the server
 * itself (no CDN), and the page reads the service's own /openapi.json. Rendered in Chromium, it shows the
 * whole introduction and, for every operation, the credential the route table gives it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.ts';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { routes, type Credential } from '../../functions/routes.ts';
import { tagOf } from '../../functions/contracts/openapi-tags.ts';

let service: TestService;
let browser: TestBrowser | undefined;

beforeAll(async () => {
  service = await startTestService();
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** The `src` and `href` values of an HTML page. */
const referencesOf = (html: string): string[] =>
  [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1] as string);

describe('GET /, and an unknown route', () => {
  it('answers GET / with where the reference is, each place answering', async () => {
    const index = await service.request('GET', '/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^application\/json/);
    expect(index.body).toEqual({
      Message: expect.stringContaining('GET /openapi.json lists every route'),
      Docs: '/docs',
      OpenApi: '/openapi.json',
      Health: '/health',
    });
    for (const path of [index.body.Docs, index.body.OpenApi, index.body.Health])
      expect((await service.request('GET', path)).status, path).toBe(200);
    // A browser opening GET / asks for /favicon.ico too: no 404 in its console.
    const icon = await service.request('GET', '/favicon.ico');
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/png']);
  });

  it('names /openapi.json and /docs in the 404 of a route that does not exist', async () => {
    const missing = await service.request('GET', '/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.body.Error).toEqual({
      Code: 'RouteNotFound',
      Message: 'No route GET /nowhere. GET /openapi.json lists every route; GET /docs browses them.',
    });
  });
});

describe('GET /docs', () => {
  it('answers an HTML page whose scripts, styles and icon are all served locally', async () => {
    const page = await service.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const references = referencesOf(page.text);
    expect(references.length).toBeGreaterThanOrEqual(4);
    for (const reference of references) {
      // A path on this server: not absolute (http:, https:) and not protocol-relative (//host).
      expect(reference, reference).toMatch(/^\/[^/]/);
      const asset = await service.request('GET', reference);
      expect(asset.status, reference).toBe(200);
      expect(Number(asset.headers.get('content-length')), reference).toBeGreaterThan(0);
    }
    const stylesheet = await service.request(
      'GET',
      references.find((reference) => reference.endsWith('.css')) as string,
    );
    expect(stylesheet.text).not.toMatch(/url\(\s*["']?(https?:)?\/\//);
    expect(stylesheet.text).not.toMatch(/@import/);
  });

  it("starts the renderer on the service's own /openapi.json, without the online validator", async () => {
    const start = await service.request('GET', '/docs/start.js');
    expect(start.status).toBe(200);
    expect(start.text).toContain("url: '/openapi.json'");
    expect(start.text).toContain('validatorUrl: null');
    expect(start.text).not.toMatch(/https?:/);
    const document = await service.request('GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.1.0');
  });

  it('serves nothing else under /docs, and leaves routes and their errors alone', async () => {
    expect((await service.request('GET', '/docs/package.json')).status).toBe(404);
    expect((await service.request('GET', '/docs/../package.json')).status).toBe(404);
    expect((await service.request('POST', '/docs')).status).toBe(404);
    expect((await service.request('GET', '/health')).body).toEqual({ Status: 'ok' });
  });
});

/** The words a credential is stated in, from the route table's value (scope names are not written here). */
const credentialWords = (credential: Credential): string =>
  credential === 'none'
    ? 'no credential'
    : credential === 'user'
      ? 'bearer token'
      : credential === 'apiKey'
        ? 'API key of any scope'
        : `API key of scope ${credential}`;

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim();

interface RenderedOperation {
  method: string;
  path: string;
  locked: boolean;
  description: string;
  tagDescription: string;
}

/** The `count` operations of the rendered page, once all are there, expanded: its method, path, lock icon, description and its tag's description. */
/** An operation's block; the document's webhooks (the partner forms) are listed apart, in `.webhooks`. */
const OPERATION = '.opblock:not(.webhooks .opblock)';

async function renderedOperations(page: Page, count: number): Promise<RenderedOperation[]> {
  await page
    .locator(OPERATION)
    .nth(count - 1)
    .waitFor();
  // Expanded one after the other inside the page (no round trip per click): each block opened before the next.
  await page.evaluate(
    async ([total, operation]) => {
      interface Block {
        classList: { contains(name: string): boolean };
        querySelector(selector: string): { click(): void } | null;
      }
      const { document } = globalThis as unknown as {
        document: { querySelectorAll(selector: string): ArrayLike<Block> };
      };
      const block = (index: number) => document.querySelectorAll(operation)[index];
      for (let index = 0; index < total; index += 1) {
        if (!block(index)?.classList.contains('is-open'))
          block(index)?.querySelector('.opblock-summary-control')?.click();
        while (!block(index)?.classList.contains('is-open')) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    [count, OPERATION] as const,
  );
  return page.locator(OPERATION).evaluateAll((elements) =>
    elements.map((element) => ({
      method: element.querySelector('.opblock-summary-method')?.textContent ?? '',
      path: element.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
      locked: element.querySelector('.authorization__btn') !== null,
      description: element.querySelector('.opblock-description-wrapper')?.textContent ?? '',
      tagDescription: element.closest('.opblock-tag-section')?.querySelector('.opblock-tag')?.textContent ?? '',
    })),
  );
}

describe('GET /docs in a browser', () => {
  it('shows the whole introduction, and every operation with the credential of the route table', async () => {
    browser = await launchBrowser();
    const page = await browser.newPage();
    expect((await page.goto(`${service.url}/docs`))?.status()).toBe(200);
    const introduction = page.locator('.information-container .info .description');
    await introduction.waitFor();

    const document = (await service.request('GET', '/openapi.json')).body as { info: { description: string } };
    // Markdown code spans show their text as is; the page must show every character of it, `<ms>` included.
    const expected = normalized(document.info.description.replaceAll('`', ''));
    expect(normalized(await introduction.innerText())).toBe(expected);
    expect(expected).toContain('"\\/Date(<ms>)\\/"');
    // The server list names this server, not the document's relative `.`.
    expect(await page.locator('.servers select option').allInnerTexts()).toEqual([`${service.url} - this npm start`]);

    const operations = await renderedOperations(page, routes.length);
    expect(operations.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(
      routes.map(({ method, path }) => `${method} ${path}`).sort(),
    );
    for (const route of routes) {
      const operation = operations.find(({ method, path }) => method === route.method && path === route.path);
      const where = `${route.method} ${route.path}`;
      const words = credentialWords(route.credential);
      expect(normalized(operation?.description ?? '').replaceAll('`', ''), where).toMatch(
        new RegExp(`^Credential: .*${words}`),
      );
      expect(operation?.locked, `${where}: lock icon`).toBe(route.credential !== 'none');
      // The tag it is listed under names its credential among the tag's, and "no credential" only when one of
      // the tag's operations takes none (a lab's DownloadLink among the orders' routes).
      expect(normalized(operation?.tagDescription ?? '').replaceAll('`', ''), `${where}: tag`).toContain(words);
      const tagTakesNone = routes.some((other) => tagOf(other) === tagOf(route) && other.credential === 'none');
      if (!tagTakesNone) expect(operation?.tagDescription, `${where}: tag`).not.toMatch(/no credential/);
    }
    expect(browser.foreignRequests).toEqual([]);
  }, 240_000);

  it('shows no ±2^53 bounds in the examples of an expanded operation', async () => {
    browser ??= await launchBrowser();
    const page = await browser.newPage();
    await page.goto(`${service.url}/docs#/Baskets/addBasketLine`);
    const block = page.locator('#operations-Baskets-addBasketLine');
    await block.waitFor();
    if ((await block.locator('.opblock-body').count()) === 0) await block.locator('.opblock-summary-control').click();
    await block.locator('.responses-wrapper').waitFor();
    const text = await block.innerText();
    expect(text).toMatch(/"Id": 1\b/);
    expect(text).toMatch(/"Quantity": 2\b/);
    expect(text).not.toMatch(/9007199254740991/);
  }, 240_000);

  it("shows each error response's example with a code that response can answer, and no made-up properties", async () => {
    browser ??= await launchBrowser();
    const page = await browser.newPage();
    await page.goto(`${service.url}/docs#/Baskets/createBasket`);
    const block = page.locator('#operations-Baskets-createBasket');
    await block.waitFor();
    if ((await block.locator('.opblock-body').count()) === 0) await block.locator('.opblock-summary-control').click();
    await block.locator('.responses-wrapper').waitFor();
    const shown = async (status: string) =>
      block
        .locator(
          `.responses-table tr.response[data-code="${status}"] .example, .responses-table tr.response[data-code="${status}"] pre`,
        )
        .first()
        .innerText();
    expect(await shown('400')).toMatch(/"Code": "InvalidIdempotencyKey"/);
    expect(await shown('401')).toMatch(/"Code": "Unauthorized"/);
    expect(await shown('403')).toMatch(/"Code": "Forbidden"/);
    const text = await block.innerText();
    expect(text).not.toMatch(/BasketNotFound|additionalProp/);
  }, 240_000);
});
