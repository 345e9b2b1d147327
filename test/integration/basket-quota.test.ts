/** Open baskets per user are capped (MAX_OPEN_BASKETS_PER_USER, default 100); expired ones do not count. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('does not count expired baskets that TTL has not deleted yet', async () => {
    const userId = 'quota-dave';
    const token = await service.token(userId);
    const { insertBasket } = await import('../../functions/store/basket-store.ts');
    const { newBasket } = await import('../../functions/domain/basket.ts');
    const { newGuid } = await import('../../functions/shared/ids.ts');
    const longAgo = { now: Date.now() - 90 * 86_400_000, ttlMs: 60 * 86_400_000 };
    for (let i = 0; i < QUOTA + 2; i++) await insertBasket(newBasket(newGuid(), userId, longAgo));
    for (let i = 0; i < QUOTA; i++) expect((await create(token)).status).toBe(200);
    expect((await create(token)).status).toBe(409);
  });
});
