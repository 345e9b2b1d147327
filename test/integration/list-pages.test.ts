/**
 * GET /orders and GET /baskets answer one bounded page, newest first: at most 200 by default, `?limit=`
 * 1-200, `?cursor=` the previous page's `NextCursor`, which is present only when more items follow.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.close());

const ORDERS = 450;

/** Writes `count` orders for `user` straight through the store, oldest first; returns their guids newest first. */
async function seedOrders(user: string, count: number, projectOf: (index: number) => string): Promise<string[]> {
  const { orderFromCheckout, orderGuidAt } = await import('../../functions/domain/order.ts');
  const store = await import('../../functions/store/order-store.ts');
  const { transact } = await import('../../functions/store/transaction.ts');
  const start = Date.now() - 10_000_000;
  const guids: string[] = [];
  for (let i = 0; i < count; i++) {
    const lines = [{ id: 1, projectGuid: projectOf(i), quantity: 1, unitPriceMinor: 100, projectVersion: 1 }];
    const order = orderFromCheckout(
      { userId: user, basketGuid: randomBytes(16).toString('hex'), lines, totalMinor: 100 },
      {
        orderGuid: orderGuidAt(start + i * 1000, randomBytes(10)),
        paymentReference: `seed-${i}`,
        createdAt: start + i * 1000,
      },
    );
    await transact(store.createOrderActions(order));
    guids.unshift(order.orderGuid);
  }
  return guids;
}

/** Follows NextCursor from `path` to the end; the guids of every page, and how many pages. */
async function readAll(path: string, token: string, field: 'Orders' | 'Baskets', guidField: 'OrderGuid' | 'Guid') {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const answer = await service.request(
      'GET',
      cursor === undefined ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`,
      { token },
    );
    expect(answer.status).toBe(200);
    pages.push((answer.body[field] as Record<string, string>[]).map((item) => item[guidField] as string));
    cursor = answer.body.NextCursor;
    if (cursor !== undefined) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  } while (cursor !== undefined);
  return pages;
}

describe('GET /orders pages', () => {
  let token: string;
  let newestFirst: string[];
  const project = 'c'.repeat(32);
  const other = 'd'.repeat(32);

  beforeAll(async () => {
    token = await service.token('many-orders');
    newestFirst = await seedOrders('many-orders', ORDERS, (i) => (i % 3 === 0 ? project : other));
  }, 120_000);

  it('answers 200 newest first by default, then the rest through NextCursor', async () => {
    const first = await service.request('GET', '/orders', { token });
    expect(first.body.Orders).toHaveLength(200);
    expect(typeof first.body.NextCursor).toBe('string');
    const pages = await readAll('/orders', token, 'Orders', 'OrderGuid');
    expect(pages.map((page) => page.length)).toEqual([200, 200, 50]);
    expect(pages.flat()).toEqual(newestFirst);
  });

  it('honours ?limit= and filters by project with the same contract', async () => {
    const pages = await readAll('/orders?limit=40', token, 'Orders', 'OrderGuid');
    expect(pages[0]).toHaveLength(40);
    expect(pages.flat()).toEqual(newestFirst);
    const withProject = await readAll(`/orders?projectguid=${project}&limit=100`, token, 'Orders', 'OrderGuid');
    expect(withProject.map((page) => page.length)).toEqual([100, 50]);
    expect(withProject.flat()).toEqual(newestFirst.filter((_, i) => (ORDERS - 1 - i) % 3 === 0));
  });

  it('leaves NextCursor out when the page is the last, and keeps the one-page shape', async () => {
    const few = await service.token('few-orders');
    await seedOrders('few-orders', 2, () => project);
    const answer = await service.request('GET', '/orders', { token: few });
    expect(Object.keys(answer.body)).toEqual(['Orders']);
    const exact = await service.request('GET', '/orders?limit=2', { token: few });
    expect(exact.body.NextCursor).toBeUndefined();
  });

  it('refuses a bad limit and a tampered or foreign cursor with 400', async () => {
    for (const limit of ['0', '201', 'abc', '-1', '1.5']) {
      const answer = await service.request('GET', `/orders?limit=${limit}`, { token });
      expect(answer.status, limit).toBe(400);
      expect(answer.body.Error.Code).toBe('ValidationFailed');
    }
    const cursor = (await service.request('GET', '/orders?limit=1', { token })).body.NextCursor as string;
    const projectCursor = (await service.request('GET', `/orders?limit=1&projectguid=${project}`, { token })).body
      .NextCursor as string;
    const forged = Buffer.from(JSON.stringify(['USER#other', 'ORDER#0'])).toString('base64url');
    const bob = await service.token('bob-pages');
    const refusals = [
      { token, path: `/orders?cursor=${cursor.slice(0, -2)}xx` },
      { token, path: `/orders?cursor=${forged}` },
      { token, path: '/orders?cursor=not%20a%20cursor' },
      { token: bob, path: `/orders?cursor=${cursor}` },
      { token, path: `/orders?cursor=${projectCursor}` },
      { token, path: `/orders?projectguid=${other}&cursor=${projectCursor}` },
    ];
    for (const { token: caller, path } of refusals) {
      const answer = await service.request('GET', path, { token: caller });
      expect(answer.status, path).toBe(400);
      expect(answer.body.Error.Code).toMatch(/^(InvalidCursor|ValidationFailed)$/);
    }
  });
});

describe('GET /baskets pages', () => {
  it('answers newest first, pages through NextCursor, and refuses a foreign cursor', async () => {
    const token = await service.token('many-baskets');
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      created.unshift((await service.request('POST', '/basket', { token })).body.Guid as string);
      // Guids order by the millisecond: baskets created within one millisecond have no defined order.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const all = await service.request('GET', '/baskets', { token });
    expect(Object.keys(all.body)).toEqual(['Baskets']);
    expect(all.body.Baskets.map((basket: { Guid: string }) => basket.Guid)).toEqual(created);
    const pages = await readAll('/baskets?limit=3', token, 'Baskets', 'Guid');
    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(created);

    const cursor = (await service.request('GET', '/baskets?limit=1', { token })).body.NextCursor as string;
    const other = await service.token('other-baskets');
    expect((await service.request('GET', `/baskets?cursor=${cursor}`, { token: other })).status).toBe(400);
    expect((await service.request('GET', '/baskets?limit=201', { token })).status).toBe(400);
  });
});
