/**
 * A checkout completed again with another PaymentReference is a second payment for a paid checkout: it must
 * not pass as a success. 409 CheckoutAlreadyCompleted names the existing order, a metric counts it and an
 * error log line is written to alarm on; the same reference still answers 200 with the same order, and
 * nothing the first completion decided changes, in sequence or in a race.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let siteKey: string;
let alice: string;
const logged: string[] = [];

beforeAll(async () => {
  service = await startTestService();
  siteKey = await service.apiKey('paid-twice-site', 'site');
  alice = await service.token('paid-twice-alice');
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    });
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await service?.close();
});

async function checkedOut(): Promise<string> {
  const project = await service.project(12.5);
  const basket = (await service.request('POST', '/basket', { token: alice })).body.Guid as string;
  await service.request('POST', `/basket/${basket}/line`, {
    token: alice,
    json: { ProjectGuid: project, Quantity: 2 },
  });
  const checkout = await service.request('POST', `/basket/${basket}/checkout`, { token: alice });
  return (checkout.body.CheckoutUrl as string).split('/').pop() as string;
}

const complete = (checkoutId: string, PaymentReference: string) =>
  service.request('POST', `/checkout/${checkoutId}/complete`, { apiKey: siteKey, json: { PaymentReference } });

const ordersOfAlice = async () =>
  ((await service.request('GET', '/orders', { token: alice })).body.Orders as { OrderGuid: string }[]).map(
    (order) => order.OrderGuid,
  );

describe('completing a completed checkout', () => {
  it('with another PaymentReference: 409 CheckoutAlreadyCompleted with the OrderGuid, a metric and a log line', async () => {
    const checkoutId = await checkedOut();
    const first = await complete(checkoutId, 'psp-first');
    expect(first.status).toBe(200);
    const orderGuid = first.body.Order.OrderGuid as string;
    const before = await ordersOfAlice();

    const second = await complete(checkoutId, 'psp-second');
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      Error: { Code: 'CheckoutAlreadyCompleted', Message: expect.stringContaining(orderGuid), OrderGuid: orderGuid },
    });
    const lines = logged.flatMap((chunk) => chunk.split('\n'));
    const paidTwice = lines
      .filter((text) => text.includes('"CheckoutPaidTwice"'))
      .map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(paidTwice).toEqual([
      {
        _aws: {
          Timestamp: expect.any(Number),
          CloudWatchMetrics: [
            {
              Namespace: 'PhotoCommerce',
              Dimensions: [['service']],
              Metrics: [{ Name: 'CheckoutPaidTwice', Unit: 'Count' }],
            },
          ],
        },
        service: 'photo-commerce',
        CheckoutPaidTwice: 1,
      },
    ]);
    const line = lines
      .filter((text) => text.includes('checkout paid twice'))
      .map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(line).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        checkoutId,
        orderGuid,
        firstPaymentReference: 'psp-first',
        paymentReference: 'psp-second',
      }),
    );

    // Nothing changed: no second order, and the first reference still answers the same order.
    expect(await ordersOfAlice()).toEqual(before);
    const again = await complete(checkoutId, 'psp-first');
    expect(again.status).toBe(200);
    expect(again.body.Order).toEqual(first.body.Order);
    const checkout = await service.request('GET', `/checkout/${checkoutId}`, { apiKey: siteKey });
    expect(checkout.body.Checkout).toMatchObject({ Status: 'Completed', OrderGuid: orderGuid });
  });

  it('in a race of two references, one wins with 200 and every other call is 409 naming that same order', async () => {
    const checkoutId = await checkedOut();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) => complete(checkoutId, index % 2 === 0 ? 'psp-even' : 'psp-odd')),
    );
    const reference = (index: number) => (index % 2 === 0 ? 'psp-even' : 'psp-odd');
    const won = answers.flatMap((answer, index) => (answer.status === 200 ? [{ answer, index }] : []));
    const refused = answers.filter((answer) => answer.status === 409);
    expect(won.length + refused.length).toBe(8);
    // Every call of the winning reference succeeded with the one order; every call of the other was refused.
    const winners = new Set(won.map(({ index }) => reference(index)));
    expect(winners.size).toBe(1);
    expect(won).toHaveLength(4);
    const orderGuids = new Set(won.map(({ answer }) => answer.body.Order.OrderGuid as string));
    expect(orderGuids.size).toBe(1);
    const [orderGuid] = [...orderGuids];
    for (const answer of refused)
      expect(answer.body.Error).toMatchObject({ Code: 'CheckoutAlreadyCompleted', OrderGuid: orderGuid });
    const [winner] = [...winners];
    expect((await complete(checkoutId, winner!)).body.Order.OrderGuid).toBe(orderGuid);
    expect((await ordersOfAlice()).filter((guid) => guid === orderGuid)).toHaveLength(1);
  });
});
