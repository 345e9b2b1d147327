/**
 * Project names over HTTP against the local stack: PUT /project takes a `Name` (trimmed, 1-200 characters, no
 * control characters), GET answers it, a PUT without one keeps the stored name, a refused PUT changes nothing;
 * GET /checkout answers the service's one currency (CURRENCY), and a CURRENCY that is no ISO 4217 code stops
 * the local stack before it starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { startLocalService } from '../../lib/local/service.ts';
import { newGuid } from '../../functions/shared/ids.ts';

let service: TestService;
let catalogKey: string;

beforeAll(async () => {
  service = await startTestService();
  catalogKey = await service.apiKey('catalog-names', 'catalog');
});
afterAll(() => service?.close());

const put = (projectGuid: string, json: unknown) =>
  service.request('PUT', `/project/${projectGuid}`, { apiKey: catalogKey, json });
const get = async (projectGuid: string) =>
  (await service.request('GET', `/project/${projectGuid}`, { apiKey: catalogKey })).body;

describe('project names', () => {
  it('registers a name with the price, answers it on PUT and GET, trimmed', async () => {
    const guid = newGuid();
    const saved = await put(guid, { UnitPrice: 29.99, Version: 1, Name: '  Photo book A4, 24 pages ' });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      ProjectGuid: guid,
      Name: 'Photo book A4, 24 pages',
      UnitPrice: 29.99,
      Version: 1,
      LastSavedDateUtc: expect.stringMatching(/^\/Date\(\d+\)\/$/),
    });
    expect(await get(guid)).toEqual(saved.body);
  });

  it('takes 200 characters, counted as characters (an emoji is one), and names in any script', async () => {
    for (const name of ['x'.repeat(200), '📷'.repeat(200), 'Fotoboek — 写真集, Ελληνικά']) {
      const guid = newGuid();
      expect((await put(guid, { UnitPrice: 1, Version: 1, Name: name })).status, name).toBe(200);
      expect((await get(guid)).Name).toBe(name);
    }
  });

  it('answers Name null for a project registered without one; a PUT without Name keeps the stored one', async () => {
    const guid = newGuid();
    expect((await put(guid, { UnitPrice: 5, Version: 1 })).body.Name).toBeNull();
    expect((await put(guid, { UnitPrice: 5, Version: 1, Name: 'Mug' })).body.Name).toBe('Mug');
    // The pricing system, which knows no names, moves the price on: the name stays.
    const repriced = await put(guid, { UnitPrice: 6, Version: 2 });
    expect(repriced.body).toMatchObject({ Name: 'Mug', UnitPrice: 6, Version: 2 });
    expect(await get(guid)).toMatchObject({ Name: 'Mug', UnitPrice: 6, Version: 2 });
  });

  it('renames under the version rule: the same Version renames, an older one is 409 and changes nothing', async () => {
    const guid = newGuid();
    await put(guid, { UnitPrice: 5, Version: 3, Name: 'Calendar' });
    expect((await put(guid, { UnitPrice: 5, Version: 3, Name: 'Wall calendar' })).status).toBe(200);
    const before = await get(guid);
    const stale = await put(guid, { UnitPrice: 5, Version: 2, Name: 'Calendar (old)' });
    expect(stale.status).toBe(409);
    expect(stale.body.Error.Code).toBe('StaleProjectVersion');
    expect(await get(guid)).toEqual(before);
  });

  it('refuses an empty, blank, too long, non-text or multi-line name with a 400 naming Name, and changes nothing', async () => {
    const guid = newGuid();
    await put(guid, { UnitPrice: 10, Version: 1, Name: 'Canvas 40x60' });
    const before = await get(guid);
    const cases: [unknown, RegExp][] = [
      ['', /Name: must not be empty/],
      ['   ', /Name: must not be empty/],
      ['x'.repeat(201), /Name: must be at most 200 characters/],
      [42, /Name: /],
      [null, /Name: /],
      [['Canvas'], /Name: /],
      ['Canvas\n40x60', /Name: must not hold control characters/],
      ['Canvas\t40x60', /Name: must not hold control characters/],
      ['Canvas\u0000', /Name: must not hold control characters/],
      ['Canvas \ud83d', /unpaired surrogates/],
    ];
    for (const [Name, message] of cases) {
      const refused = await put(guid, { UnitPrice: 99, Version: 5, Name });
      expect([JSON.stringify(Name), refused.status]).toEqual([JSON.stringify(Name), 400]);
      expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(refused.body.Error).toMatchObject({ Code: 'ValidationFailed', Fields: ['Name'] });
      expect(refused.body.Error.Message).toMatch(message);
    }
    expect(await get(guid)).toEqual(before);
  });
});

describe('currency', () => {
  async function checkoutAnswer(): Promise<Record<string, unknown>> {
    const token = await service.token('carol');
    const project = await service.project(3.5, 1, 'Sticker sheet');
    const basket = (await service.request('POST', '/basket', { token })).body.Guid as string;
    await service.request('POST', `/basket/${basket}/line`, { token, json: { ProjectGuid: project, Quantity: 2 } });
    const url = (await service.request('POST', `/basket/${basket}/checkout`, { token })).body.CheckoutUrl as string;
    const siteKey = await service.apiKey('site-currency', 'site');
    return (await service.request('GET', `/checkout/${url.split('/').pop()}`, { apiKey: siteKey })).body.Checkout;
  }

  it('GET /checkout answers the service currency: EUR by default, CURRENCY when set', async () => {
    expect(await checkoutAnswer()).toMatchObject({ Currency: 'EUR', OrderTotal: 7 });
    process.env.CURRENCY = 'GBP';
    try {
      expect((await checkoutAnswer()).Currency).toBe('GBP');
    } finally {
      delete process.env.CURRENCY;
    }
  });

  it('refuses to start the local stack with a CURRENCY that is no ISO 4217 code, naming it', async () => {
    for (const CURRENCY of ['eur', 'EURO', '€'])
      await expect(startLocalService({ port: 0, env: { CURRENCY } })).rejects.toThrow(
        `environment variable CURRENCY must be an ISO 4217 currency code, three upper-case letters such as EUR, got ${CURRENCY}`,
      );
  });
});
