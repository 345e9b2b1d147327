/**
 * GET /docs of the local service: the API reference page and every file it loads come from the server
 * itself (no CDN), and the page reads the service's own /openapi.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});

afterAll(async () => {
  await service?.close();
});

/** The `src` and `href` values of an HTML page. */
const referencesOf = (html: string): string[] =>
  [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1] as string);

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
