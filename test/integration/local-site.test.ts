/**
 * The local checkout site in headless Chromium, against the real local service: a shopper pays a checkout
 * and the order appears in GET /orders, and cancels it with their token (another customer's is refused); a
 * changed or unknown checkout says why it cannot be paid; an
 * unknown builder link says so; the pages reach nothing but loopback and never carry the site's
 * API key. The builder page with images: local-site-builder.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Response } from 'playwright-core';
import { pageHeading as heading, startSiteStack, type SiteStack } from '../support/site.ts';
import { launchBrowser } from '../support/browser.ts';
import { SITE_KEY_NAME } from '../../lib/local/site/stand-in.ts';

let stack: SiteStack;
let alice: string;
let photoBook: string;
let canvas: string;
/** Everything the browser received: bodies, header values, final URLs (checked for the API key below). */
const received: string[] = [];
const bodiesRead: Promise<unknown>[] = [];

beforeAll(async () => {
  stack = await startSiteStack();
  stack.browser.context.on('response', (response: Response) => {
    received.push(response.url(), ...Object.values(response.headers()));
    // A redirect has no body to read.
    bodiesRead.push(
      response.text().then(
        (text) => received.push(text),
        () => {},
      ),
    );
  });
  alice = await stack.service.token('alice');
  photoBook = await stack.service.project(29.99, 1, 'Photo book A4, 24 pages');
  canvas = await stack.service.project(49.5);
});
afterAll(() => stack?.close());

/** A basket of alice's with these lines, checked out: answers the CheckoutUrl the app would open. */
async function checkoutUrlFor(lines: [string, number][]): Promise<{ basketGuid: string; checkoutUrl: string }> {
  const basketGuid = (await stack.service.request('POST', '/basket', { token: alice })).body.Guid as string;
  for (const [ProjectGuid, Quantity] of lines) {
    expect(
      (
        await stack.service.request('POST', `/basket/${basketGuid}/line`, {
          token: alice,
          json: { ProjectGuid, Quantity },
        })
      ).status,
    ).toBe(200);
  }
  const checkout = await stack.service.request('POST', `/basket/${basketGuid}/checkout`, { token: alice });
  expect(checkout.status).toBe(200);
  return { basketGuid, checkoutUrl: checkout.body.CheckoutUrl as string };
}

describe('local checkout site in a browser', { timeout: 120_000 }, () => {
  it('shows the lines and total, pays with the Pay button (keyboard), and confirms the order that GET /orders lists', async () => {
    const { checkoutUrl } = await checkoutUrlFor([
      [photoBook, 2],
      [canvas, 1],
    ]);
    expect(checkoutUrl.startsWith(`${stack.site.url}/checkout/`)).toBe(true);
    const page = await stack.browser.newPage();
    expect((await page.goto(checkoutUrl))?.status()).toBe(200);
    expect(await page.title()).toBe('Pay for your order · Local checkout');
    expect(await heading(page)).toBe('Pay for your order');
    const rows = await page.getByRole('row').allTextContents();
    // A named project shows its name, an unnamed one says so; each with its guid shortened.
    expect(rows.some((row) => row.includes('Photo book A4, 24 pages') && row.includes(photoBook.slice(0, 8)))).toBe(
      true,
    );
    expect(rows.some((row) => row.includes('€29.99') && row.includes('€59.98'))).toBe(true);
    expect(rows.some((row) => row.includes('Unnamed product') && row.includes(canvas.slice(0, 8)))).toBe(true);
    expect(await page.locator('[data-total]').textContent()).toBe('€109.48');
    await stack.browser.screenshot(page, 'checkout');

    // Keyboard only: the skip link, then the Pay button, with a visible focus outline; Enter pays.
    const pay = page.getByRole('button', { name: /Pay/ });
    expect(await pay.textContent()).toBe('Pay €109.48');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    // Expressions as text: they run in the page, and the tests compile without the DOM's types.
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Pay €109.48');
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
    await Promise.all([page.waitForURL(/\/confirmation$/), page.keyboard.press('Enter')]);

    expect(await heading(page)).toBe('Thank you, your order is confirmed');
    const orderGuid = (await page.locator('[data-order-guid]').textContent()) as string;
    expect(orderGuid).toMatch(/^[0-9a-f]{32}$/);
    expect(await page.locator('[data-order-status]').textContent()).toBe('Order received');
    await stack.browser.screenshot(page, 'confirmation');

    const orders = await stack.service.request('GET', '/orders', { token: alice });
    expect(orders.body.Orders).toContainEqual(
      expect.objectContaining({ OrderGuid: orderGuid, Status: 'OrderReceived', OrderTotal: 109.48 }),
    );

    // The checkout URL again (back button, second tab): the confirmation, not a second payment.
    await page.goto(checkoutUrl);
    expect(page.url()).toMatch(/\/confirmation$/);
    expect(await page.locator('[data-order-guid]').textContent()).toBe(orderGuid);
    expect((await stack.service.request('GET', '/orders', { token: alice })).body.Orders).toHaveLength(
      orders.body.Orders.length,
    );
    await page.close();
  });

  it("cancels the order with the customer's token while it is OrderReceived, refusing another customer's", async () => {
    const { checkoutUrl } = await checkoutUrlFor([[photoBook, 1]]);
    const page = await stack.browser.newPage();
    await page.goto(checkoutUrl);
    await Promise.all([page.waitForURL(/\/confirmation$/), page.getByRole('button', { name: /Pay/ }).click()]);
    const orderGuid = (await page.locator('[data-order-guid]').textContent()) as string;
    const cancel = page.getByRole('button', { name: 'Cancel order' });
    expect(await cancel.count()).toBe(1);

    // Another customer's token cancels nothing.
    await page.getByLabel('Your sign-in token').fill(await stack.service.token('mallory'));
    await cancel.click();
    expect(await heading(page)).toBe('We could not tell that this is your order');
    const unchanged = await stack.service.request('GET', `/order/${orderGuid}`, { token: alice });
    expect(unchanged.body.Status).toBe('OrderReceived');

    await page.goBack();
    await page.getByLabel('Your sign-in token').fill(alice);
    await Promise.all([page.waitForURL(/\/confirmation$/), page.getByRole('button', { name: 'Cancel order' }).click()]);
    expect(await page.locator('[data-order-status]').textContent()).toBe('Cancelled');
    expect(await page.getByRole('button', { name: 'Cancel order' }).count()).toBe(0);
    await stack.browser.screenshot(page, 'cancelled');
    const read = await stack.service.request('GET', `/order/${orderGuid}`, { token: alice });
    expect(read.body.Status).toBe('Cancelled');
    await page.close();
  });

  it('says why a changed checkout cannot be paid, whether it changed before the page opened or before Pay', async () => {
    const before = await checkoutUrlFor([[photoBook, 1]]);
    await stack.service.request('POST', `/basket/${before.basketGuid}/line`, {
      token: alice,
      json: { ProjectGuid: canvas, Quantity: 1 },
    });
    const page = await stack.browser.newPage();
    expect((await page.goto(before.checkoutUrl))?.status()).toBe(409);
    expect(await heading(page)).toBe('This checkout can no longer be paid');
    expect(await page.getByRole('alert').textContent()).toContain('The basket was changed');
    expect(await page.getByRole('button', { name: /Pay/ }).count()).toBe(0);
    await stack.browser.screenshot(page, 'checkout-changed');

    const during = await checkoutUrlFor([[photoBook, 1]]);
    await page.goto(during.checkoutUrl);
    await stack.service.request('PUT', `/basket/${during.basketGuid}/line/1`, {
      token: alice,
      json: { ProjectGuid: photoBook, Quantity: 3 },
    });
    await page.getByRole('button', { name: /Pay/ }).click();
    expect(await heading(page)).toBe('This checkout can no longer be paid');
    expect(await page.getByRole('alert').textContent()).toContain('Nothing has been charged.');
    await stack.browser.screenshot(page, 'pay-refused');
    await page.close();
  });

  it('says an expired or unknown checkout link has expired (the service answers both 404 CheckoutNotFound)', async () => {
    // A checkout lives as long as its basket (BASKET_TTL_DAYS, read per request): 0 days expires it at once.
    const basketGuid = (await stack.service.request('POST', '/basket', { token: alice })).body.Guid as string;
    await stack.service.request('POST', `/basket/${basketGuid}/line`, {
      token: alice,
      json: { ProjectGuid: photoBook, Quantity: 1 },
    });
    process.env.BASKET_TTL_DAYS = '0';
    const expired = await stack.service
      .request('POST', `/basket/${basketGuid}/checkout`, { token: alice })
      .finally(() => delete process.env.BASKET_TTL_DAYS);
    const page = await stack.browser.newPage();
    for (const url of [expired.body.CheckoutUrl as string, `${stack.site.url}/checkout/${'0'.repeat(32)}`]) {
      expect((await page.goto(url))?.status()).toBe(404);
      expect(await heading(page)).toBe('This checkout link has expired');
      expect(await page.getByRole('alert').textContent()).toContain('Checkout links are valid for a limited time');
      expect(await page.getByRole('button', { name: /Pay/ }).count()).toBe(0);
    }
    await stack.browser.screenshot(page, 'checkout-expired');
    await page.close();
  });

  it('says when a product builder link is unknown', async () => {
    const page = await stack.browser.newPage();
    expect((await page.goto(`${stack.site.url}/builder/${'0'.repeat(32)}`))?.status()).toBe(404);
    expect(await heading(page)).toBe('We could not find these photos');
    await stack.browser.screenshot(page, 'builder-not-found');
    await page.close();
  });

  it('sends every page with a strict content security policy and no referrer, and a 404 page for other paths', async () => {
    const css = await fetch(`${stack.site.url}/site.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const paid = await fetch(`${stack.site.url}/checkout/${'0'.repeat(32)}/pay`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(paid.status).toBe(404);
    expect(paid.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(paid.headers.get('referrer-policy')).toBe('no-referrer');
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/checkout'],
      ['DELETE', `/checkout/${'0'.repeat(32)}`],
      ['GET', '/builder/a/b'],
      ['GET', '/checkout/%E0%A4%A'],
    ]) {
      const response = await fetch(`${stack.site.url}${path}`, { method: method as string });
      expect([path, response.status]).toEqual([path, 404]);
      expect(await response.text()).toContain('<h1>Page not found</h1>');
    }
  });

  it('made no request beyond loopback and never sent the site API key to the browser', async () => {
    expect(stack.browser.foreignRequests).toEqual([]);
    await Promise.all(bodiesRead);
    expect(received.length).toBeGreaterThan(10);
    // API keys have this form (a UUID); nothing the pages show, link or set has it.
    const keyForm = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
    expect(received.filter((text) => keyForm.test(text))).toEqual([]);
    expect(await stack.browser.context.cookies()).toEqual([]);
  });

  it('fails with a clear message when chromium is not installed', async () => {
    await expect(launchBrowser('/nonexistent/chromium')).rejects.toThrow(
      'install it with `apt-get update && apt-get install -y chromium`',
    );
  });

  it('runs on a `site` key made through the API-key store, revoked when the site closes', async () => {
    const { listApiKeys } = await import('../../functions/store/api-key-store.ts');
    expect((await listApiKeys()).filter((key) => key.name === SITE_KEY_NAME).map((key) => key.scope)).toEqual(['site']);
    await stack.closeSite();
    expect((await listApiKeys()).filter((key) => key.name === SITE_KEY_NAME)).toEqual([]);
  });
});
