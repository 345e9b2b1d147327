/**
 * Open baskets per user are capped (MAX_OPEN_BASKETS_PER_USER, default 100), exactly, also under
 * concurrent creations; deleted, ordered and expired ones (whether TTL has deleted them yet or not) do not count.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const QUOTA = 3;
let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { MAX_OPEN_BASKETS_PER_USER: String(QUOTA) } });
});
afterAll(() => service?.close());

const create = (token: string) => service.request('POST', '/basket', { token });
const openGuids = async (token: string) =>
  ((await service.request('GET', '/baskets', { token })).body.Baskets as { Guid: string }[]).map(
    (basket) => basket.Guid,
  );

describe('open baskets per user', () => {
  it('refuses the basket past the quota with 409 BasketQuotaExceeded and creates nothing', async () => {
    const token = await service.token('quota-alice');
    for (let i = 0; i < QUOTA; i++) expect((await create(token)).status).toBe(200);
    const refused = await create(token);
    expect(refused.status).toBe(409);
    expect(refused.body.Error.Code).toBe('BasketQuotaExceeded');
    expect(refused.body.Error.Message).toContain(String(QUOTA));
    expect(await openGuids(token)).toHaveLength(QUOTA);
    // Another user has a quota of their own.
    expect((await create(await service.token('quota-bob'))).status).toBe(200);
  });

  it('counts a deleted or ordered basket out again', async () => {
    const token = await service.token('quota-carol');
    const siteKey = await service.apiKey('quota-site', 'site');
    const project = await service.project(4.5);
    for (let i = 0; i < QUOTA; i++) expect((await create(token)).status).toBe(200);
    const [first, second] = await openGuids(token);
    expect((await service.request('DELETE', `/basket/${first}`, { token })).status).toBe(200);
    expect((await create(token)).status).toBe(200);
    expect((await create(token)).status).toBe(409);

    expect(
      (await service.request('POST', `/basket/${second}/line`, { token, json: { ProjectGuid: project, Quantity: 1 } }))
        .status,
    ).toBe(200);
    const checkoutId = (
      (await service.request('POST', `/basket/${second}/checkout`, { token })).body.CheckoutUrl as string
    )
      .split('/')
      .pop();
    expect(
      (
        await service.request('POST', `/checkout/${checkoutId}/complete`, {
          apiKey: siteKey,
          json: { PaymentReference: 'quota' },
        })
      ).status,
    ).toBe(200);
    expect((await create(token)).status).toBe(200);
  });

  describe('expiry', () => {
    const DAY = 86_400_000;
    afterEach(() => {
      vi.useRealTimers();
    });
    const start = Date.now();
    /** The service's clock (it runs in this process) `days` after the start; DynamoDB Local's own clock is not involved. */
    const daysLater = (days: number) => vi.useFakeTimers({ toFake: ['Date'], now: start + days * DAY });

    it('frees the quota of baskets past their expiry that TTL has not deleted yet', async () => {
      const userId = 'quota-dave';
      const token = await service.token(userId);
      for (let i = 0; i < QUOTA; i++) expect((await create(token)).status).toBe(200);
      expect((await create(token)).status).toBe(409);
      daysLater(61);
      const later = await service.token(userId);
      expect(await openGuids(later)).toEqual([]);
      for (let i = 0; i < QUOTA; i++) expect((await create(later)).status).toBe(200);
      expect((await create(later)).status).toBe(409);
    });

    it('frees the quota of baskets TTL deleted, and keeps counting a basket a change kept alive', async () => {
      const userId = 'quota-erin';
      const token = await service.token(userId);
      for (let i = 0; i < QUOTA; i++) expect((await create(token)).status).toBe(200);
      const [kept] = await openGuids(token);
      daysLater(50);
      // A change 50 days on keeps that basket open for 60 days more: its place in the quota stays taken.
      const project = await service.project(2);
      const added = await service.request('POST', `/basket/${kept}/line`, {
        token: await service.token(userId),
        json: { ProjectGuid: project, Quantity: 1 },
      });
      expect(added.status).toBe(200);
      daysLater(61);
      expect((await service.expireTtl(Date.now())).expired).toBeGreaterThanOrEqual(QUOTA - 1);
      const later = await service.token(userId);
      expect(await openGuids(later)).toEqual([kept]);
      for (let i = 0; i < QUOTA - 1; i++) expect((await create(later)).status).toBe(200);
      const refused = await create(later);
      expect(refused.status).toBe(409);
      expect(refused.body.Error.Code).toBe('BasketQuotaExceeded');
      expect(await openGuids(later)).toHaveLength(QUOTA);
    });
  });

  // Three times the quota at once: every creation races the others on the user's one quota record. Not hundreds:
  // DynamoDB Local runs a table's writes one at a time and answers 500 to a write that waited 10 s for its turn,
  // which 300 creations reached on a loaded machine (a test of the engine's queue, not of the quota).
  it('makes exactly the quota of open baskets out of three times as many concurrent creations, the rest 409', async () => {
    const quota = 10;
    const previous = process.env.MAX_OPEN_BASKETS_PER_USER;
    process.env.MAX_OPEN_BASKETS_PER_USER = String(quota);
    try {
      const token = await service.token('quota-frank');
      const answers = await Promise.all(Array.from({ length: 3 * quota }, () => create(token)));
      const made = answers.filter((answer) => answer.status === 200);
      const refused = answers.filter((answer) => answer.status !== 200);
      expect(made).toHaveLength(quota);
      expect(refused.map((answer) => [answer.status, answer.body?.Error?.Code])).toEqual(
        Array.from({ length: 2 * quota }, () => [409, 'BasketQuotaExceeded']),
      );
      // Every basket answered 200 is there, and no other.
      expect((await openGuids(token)).sort()).toEqual(made.map((answer) => answer.body.Guid as string).sort());
    } finally {
      process.env.MAX_OPEN_BASKETS_PER_USER = previous;
    }
  });
});
