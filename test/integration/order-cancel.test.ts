/**
 * The customer's cancel, over HTTP against the local stack: `POST /order/{orderGuid}/cancel` while the order
 * is `OrderReceived` (200, the single-order form), 409 OrderInProduction once the lab has started, the same
 * answer for a cancelled order, 404 for another user's or an unknown order; a cancel racing the lab's
 * `Processing` has one winner (50 rounds); `OrderCancelled` reaches site webhooks with the PaymentReference
 * and fulfilment webhooks without it, each verified with `standardwebhooks`.
 */
import { randomUUID } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerRecord, startWebhookStack, until, type WebhookStack } from '../support/webhooks.ts';

let stack: WebhookStack;
let bob: string;
let project: string;

beforeAll(async () => {
  stack = await startWebhookStack();
  bob = await stack.service.token(`cancel-bob-${Date.now()}`);
  project = await stack.service.project(12.5, 1, 'Mug');
}, 60_000);
afterAll(() => stack?.close());

/** A paid order of `token`'s user: two mugs. */
async function paidOrder(token = stack.alice): Promise<{ orderGuid: string; paymentReference: string; order: any }> {
  const { service, siteKey } = stack;
  const basketGuid = (await service.request('POST', '/basket', { token })).body.Guid as string;
  const line = await service.request('POST', `/basket/${basketGuid}/line`, {
    token,
    json: { ProjectGuid: project, Quantity: 2 },
  });
  expect(line.status, line.text).toBe(200);
  const checkout = await service.request('POST', `/basket/${basketGuid}/checkout`, { token });
  const checkoutId = (checkout.body.CheckoutUrl as string).split('/').pop() as string;
  const paymentReference = `psp-${randomUUID()}`;
  const completed = await service.request('POST', `/checkout/${checkoutId}/complete`, {
    apiKey: siteKey,
    json: { PaymentReference: paymentReference },
  });
  expect(completed.status, completed.text).toBe(200);
  return { orderGuid: completed.body.Order.OrderGuid as string, paymentReference, order: completed.body.Order };
}

const cancel = (orderGuid: string, token = stack.alice, headers: Record<string, string> = {}) =>
  stack.service.request('POST', `/order/${orderGuid}/cancel`, { token, headers });
const setStatus = (orderGuid: string, Status: string) =>
  stack.service.request('PUT', `/order/${orderGuid}/status`, { apiKey: stack.fulfilmentKey, json: { Status } });

describe('POST /order/{orderGuid}/cancel', { timeout: 90_000 }, () => {
  it('cancels an OrderReceived order: 200 with Status Cancelled; a repeat answers the same order', async () => {
    const { orderGuid } = await paidOrder();
    const cancelled = await cancel(orderGuid);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.Order).toMatchObject({ OrderGuid: orderGuid, Status: 'Cancelled' });
    const again = await cancel(orderGuid);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(cancelled.body);
    const read = await stack.service.request('GET', `/order/${orderGuid}`, { token: stack.alice });
    expect(read.body.Status).toBe('Cancelled');
  });

  it('takes an Idempotency-Key: a replay answers the first result', async () => {
    const { orderGuid } = await paidOrder();
    const key = { 'Idempotency-Key': randomUUID() };
    const first = await cancel(orderGuid, stack.alice, key);
    expect(first.status, first.text).toBe(200);
    const replay = await cancel(orderGuid, stack.alice, key);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
  });

  it('is 409 OrderInProduction naming the status once the lab has started', async () => {
    const { orderGuid } = await paidOrder();
    for (const status of ['Processing', 'Shipped', 'Completed']) {
      expect((await setStatus(orderGuid, status)).status).toBe(200);
      const refused = await cancel(orderGuid);
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body.Error).toMatchObject({ Code: 'OrderInProduction', Status: status });
      expect(refused.body.Error.Message).toContain(status);
    }
    const read = await stack.service.request('GET', `/order/${orderGuid}`, { token: stack.alice });
    expect(read.body.Status).toBe('Completed');
  });

  it("is 404 OrderNotFound for another user's order and an unknown one, and changes nothing", async () => {
    const { orderGuid } = await paidOrder();
    for (const [guid, token] of [
      [orderGuid, bob],
      ['0'.repeat(32), stack.alice],
    ] as const) {
      const refused = await cancel(guid, token);
      expect(refused.status, refused.text).toBe(404);
      expect(refused.body.Error.Code).toBe('OrderNotFound');
    }
    const read = await stack.service.request('GET', `/order/${orderGuid}`, { token: stack.alice });
    expect(read.body.Status).toBe('OrderReceived');
  });

  it("has one winner against the lab's Processing: 50 rounds", async () => {
    const outcomes = { cancelled: 0, processing: 0 };
    for (let round = 0; round < 50; round++) {
      const { orderGuid } = await paidOrder();
      const [cancelled, moved] =
        round % 2 === 0
          ? await Promise.all([cancel(orderGuid), setStatus(orderGuid, 'Processing')])
          : await Promise.all([setStatus(orderGuid, 'Processing'), cancel(orderGuid)]).then(
              ([m, c]) => [c, m] as const,
            );
      const read = await stack.service.request('GET', `/order/${orderGuid}`, { token: stack.alice });
      if (cancelled.status === 200) {
        outcomes.cancelled++;
        expect(moved.status, moved.text).toBe(409);
        expect(moved.body.Error.Code).toBe('IllegalStatusTransition');
        expect(read.body.Status).toBe('Cancelled');
      } else {
        outcomes.processing++;
        expect(cancelled.status, cancelled.text).toBe(409);
        expect(cancelled.body.Error).toMatchObject({ Code: 'OrderInProduction', Status: 'Processing' });
        expect(moved.status, moved.text).toBe(200);
        expect(read.body.Status).toBe('Processing');
      }
    }
    expect(outcomes.cancelled + outcomes.processing).toBe(50);
  }, 300_000);
});

describe('OrderCancelled', { timeout: 90_000 }, () => {
  it('reaches site webhooks with the PaymentReference and fulfilment webhooks without it, for a cancel by either', async () => {
    const site = await stack.register(stack.siteKey, '/site-cancel', ['OrderCancelled']);
    const lab = await stack.register(stack.fulfilmentKey, '/lab-cancel', ['OrderCancelled']);
    const byCustomer = await paidOrder();
    const customerCancel = (await cancel(byCustomer.orderGuid)).body.Order;
    const byLab = await paidOrder();
    expect((await setStatus(byLab.orderGuid, 'Processing')).status).toBe(200);
    const labCancel = (await setStatus(byLab.orderGuid, 'Cancelled')).body.Order;

    // Cancels of the race above may still be on their way: only this test's two orders count.
    const ours = new Set([byCustomer.orderGuid, byLab.orderGuid]);
    const verified = async (path: string, secret: string) => {
      const payloads = () =>
        stack.receiver
          .to(path)
          .map((delivery) => new StandardWebhook(secret).verify(delivery.body, headerRecord(delivery.headers)) as any)
          .filter((payload) => ours.has(payload.data.OrderGuid));
      await until(`two deliveries to ${path}`, () => payloads().length >= 2, 30_000);
      return payloads().sort((a, b) => (a.data.CancelledBy < b.data.CancelledBy ? -1 : 1));
    };
    const expected = (paid: { orderGuid: string }, order: any, by: string) => ({
      OrderGuid: paid.orderGuid,
      CancelledBy: by,
      RefundDue: order.OrderTotal,
      Currency: 'EUR',
      CancelledDateUtc: order.LastSavedDateUtc,
    });
    const forLab = await verified('/lab-cancel', lab.Secret);
    expect(forLab.map((payload) => payload.type)).toEqual(['OrderCancelled', 'OrderCancelled']);
    expect(forLab.map((payload) => payload.data)).toEqual([
      expected(byCustomer, customerCancel, 'Customer'),
      expected(byLab, labCancel, 'Fulfilment'),
    ]);
    const forSite = await verified('/site-cancel', site.Secret);
    expect(forSite.map((payload) => payload.data)).toEqual([
      { ...expected(byCustomer, customerCancel, 'Customer'), PaymentReference: byCustomer.paymentReference },
      { ...expected(byLab, labCancel, 'Fulfilment'), PaymentReference: byLab.paymentReference },
    ]);
  });
});
