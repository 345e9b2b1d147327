/**
 * A line keeps the price it had when last written, and every save pushes the basket's expiry, so a stale
 * price could be checked out months later. Checkout reprices every line at the project's current price.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let alice: string;
let siteKey: string;
let catalogKey: string;

beforeAll(async () => {
  service = await startTestService();
  alice = await service.token('alice-repricing');
  siteKey = await service.apiKey('repricing-site', 'site');
  catalogKey = await service.apiKey('repricing-catalog', 'catalog');
});
afterAll(() => service?.close());

const setPrice = async (projectGuid: string, UnitPrice: number, Version: number) =>
  expect(
    (await service.request('PUT', `/project/${projectGuid}`, { apiKey: catalogKey, json: { UnitPrice, Version } }))
      .status,
  ).toBe(200);

async function basketWith(lines: [string, number][]): Promise<string> {
  const guid = (await service.request('POST', '/basket', { token: alice })).body.Guid as string;
  for (const [ProjectGuid, Quantity] of lines)
    expect(
      (await service.request('POST', `/basket/${guid}/line`, { token: alice, json: { ProjectGuid, Quantity } })).status,
    ).toBe(200);
  return guid;
}

async function checkOut(basketGuid: string) {
  const answer = await service.request('POST', `/basket/${basketGuid}/checkout`, { token: alice });
  expect(answer.status).toBe(200);
  expect(Object.keys(answer.body).sort()).toEqual(['BasketGuid', 'CheckoutUrl']);
  const checkoutId = (answer.body.CheckoutUrl as string).split('/').pop() as string;
  return (await service.request('GET', `/checkout/${checkoutId}`, { apiKey: siteKey })).body.Checkout;
}

describe('checkout repricing', () => {
  it('charges the current price of every line, and the basket and order show it', async () => {
    const book = await service.project(10, 1);
    const canvas = await service.project(20, 1);
    const basketGuid = await basketWith([
      [book, 2],
      [canvas, 1],
    ]);
    await setPrice(book, 12.5, 2);
    // The version rule accepts a repeat of the stored version, so a price can change under the same version.
    await setPrice(canvas, 21, 1);

    const checkout = await checkOut(basketGuid);
    expect(checkout.Lines).toEqual([
      { Id: 1, ProjectGuid: book, Quantity: 2, Total: 25, Name: null },
      { Id: 2, ProjectGuid: canvas, Quantity: 1, Total: 21, Name: null },
    ]);
    expect(checkout.OrderTotal).toBe(46);
    expect(checkout.Status).toBe('Open');

    const basket = (await service.request('GET', `/basket/${basketGuid}`, { token: alice })).body;
    expect(basket.OrderTotal).toBe(46);

    const completed = await service.request('POST', `/checkout/${checkout.CheckoutId}/complete`, {
      apiKey: siteKey,
      json: { PaymentReference: 'repriced' },
    });
    expect(completed.status).toBe(200);
    expect(completed.body.Order.OrderTotal).toBe(46);
    expect(completed.body.Order.Lines.map((line: { ProjectVersion: number }) => line.ProjectVersion)).toEqual([2, 1]);
  });

  it('leaves a basket whose prices are current unchanged (no new version, same saved date)', async () => {
    const book = await service.project(7.25, 3);
    const basketGuid = await basketWith([[book, 4]]);
    const before = (await service.request('GET', `/basket/${basketGuid}`, { token: alice })).body;
    const checkout = await checkOut(basketGuid);
    expect(checkout.OrderTotal).toBe(29);
    expect((await service.request('GET', `/basket/${basketGuid}`, { token: alice })).body).toEqual(before);
  });

  it('a checkout taken before a price change still completes at the price it showed', async () => {
    const book = await service.project(5, 1);
    const basketGuid = await basketWith([[book, 1]]);
    const checkout = await checkOut(basketGuid);
    await setPrice(book, 6, 2);
    const completed = await service.request('POST', `/checkout/${checkout.CheckoutId}/complete`, {
      apiKey: siteKey,
      json: { PaymentReference: 'as-shown' },
    });
    expect(completed.status).toBe(200);
    expect(completed.body.Order.OrderTotal).toBe(5);
  });
});
