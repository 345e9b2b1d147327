/**
 * A failing receiver on loopback, against the local stack: failures are retried on the schedule
 * (WEBHOOK_RETRY_SCHEDULE=1,1: three attempts, one webhook-id) and each attempt is logged; the last failure
 * leaves the delivery Failed and the webhook enabled; a redelivery sends the same webhook-id with a new
 * timestamp and signature. A repeated fan-out of one event (a publisher retry, at-least-once queues) neither
 * restarts a settled delivery's schedule nor runs a second schedule beside one under way.
 */
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitStatusEvent, headerRecord, startWebhookStack, type WebhookStack, until } from '../support/webhooks.ts';
import { deliveryIdFor, type Delivery } from '../../functions/domain/webhook-delivery.ts';

let stack: WebhookStack;
let getDelivery: typeof import('../../functions/store/webhook-delivery-store.ts').getDelivery;
let fanOut: typeof import('../../functions/services/webhook-fanout-service.ts').fanOut;

/** Time for a repeated chain's attempts to show at the `1,1` schedule; none may. */
const QUIET_MS = 4_000;
const quiet = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS));

beforeAll(async () => {
  stack = await startWebhookStack({ WEBHOOK_RETRY_SCHEDULE: '1,1' });
  ({ getDelivery } = await import('../../functions/store/webhook-delivery-store.ts'));
  ({ fanOut } = await import('../../functions/services/webhook-fanout-service.ts'));
});
afterAll(() => stack?.close());

describe('webhook retries', () => {
  it('retries 500, 500, then 200: three attempts with one webhook-id, Delivered, each attempt logged', async () => {
    const { WebhookId } = await stack.register(stack.fulfilmentKey, '/flaky', ['OrderStatusChanged']);
    stack.receiver.script('/flaky', [500, 500]);
    const event = await commitStatusEvent('a'.repeat(32));
    const attempts = await until(
      'three attempts',
      () => stack.receiver.to('/flaky').length >= 3 && stack.receiver.to('/flaky'),
      15_000,
    );
    const ids = new Set(attempts.map((attempt) => attempt.headers['webhook-id']));
    expect(ids).toEqual(new Set([deliveryIdFor(event.id, WebhookId, event.time)]));
    // The schedule's delays (1 s each) are kept between attempts.
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(900);
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(900);
    const stored = (await until('the Delivered state', async () => {
      const found = await getDelivery(WebhookId, [...ids][0] as string);
      return found?.state === 'Delivered' && found;
    })) as Delivery;
    expect(stored.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 200]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(stack.receiver.to('/flaky')).toHaveLength(3);

    // The log answers the same, newest first, to the owning key only.
    const log = await stack.service.request('GET', `/webhooks/${WebhookId}/deliveries`, {
      apiKey: stack.fulfilmentKey,
    });
    expect(log.status, log.text).toBe(200);
    expect(log.body.Deliveries).toHaveLength(1);
    expect(log.body.Deliveries[0]).toMatchObject({
      DeliveryId: [...ids][0],
      EventType: 'OrderStatusChanged',
      State: 'Delivered',
    });
    expect(log.body.Deliveries[0].Attempts.map((attempt: { Status: number }) => attempt.Status)).toEqual([
      500, 500, 200,
    ]);
    for (const attempt of log.body.Deliveries[0].Attempts) {
      expect(attempt.DateUtc).toMatch(/^\/Date\(\d+\)\/$/);
      expect(attempt.DurationMs).toBeGreaterThanOrEqual(0);
    }
    const foreign = await stack.service.request('GET', `/webhooks/${WebhookId}/deliveries`, { apiKey: stack.siteKey });
    expect(foreign.status).toBe(404);
  }, 30_000);

  it('redelivers a delivery: the same webhook-id, a new timestamp and signature, logged as a new attempt', async () => {
    const { WebhookId, Secret } = await stack.register(stack.fulfilmentKey, '/again', ['OrderStatusChanged']);
    const event = await commitStatusEvent('9'.repeat(32));
    const deliveryId = deliveryIdFor(event.id, WebhookId, event.time);
    await until('the first delivery', () => stack.receiver.to('/again').length === 1);
    await until('Delivered', async () => (await getDelivery(WebhookId, deliveryId))?.state === 'Delivered');
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // a later second for the new timestamp

    const path = `/webhooks/${WebhookId}/deliveries/${deliveryId}/redeliver`;
    expect((await stack.service.request('POST', path, { apiKey: stack.siteKey })).status).toBe(404);
    const redelivered = await stack.service.request('POST', path, { apiKey: stack.fulfilmentKey });
    expect(redelivered.status, redelivered.text).toBe(200);
    expect(redelivered.body).toEqual({ DeliveryId: deliveryId, State: 'Pending' });
    const [first, second] = await until(
      'the redelivery',
      () => stack.receiver.to('/again').length === 2 && stack.receiver.to('/again'),
    );
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.headers['webhook-timestamp']).not.toBe(first!.headers['webhook-timestamp']);
    expect(second!.headers['webhook-signature']).not.toBe(first!.headers['webhook-signature']);
    expect(second!.body).toBe(first!.body);
    expect(() => new StandardWebhook(Secret).verify(second!.body, headerRecord(second!.headers))).not.toThrow();
    const stored = await until('Delivered again', async () => {
      const found = await getDelivery(WebhookId, deliveryId);
      return found?.state === 'Delivered' && found.attempts.length === 2 && found;
    });
    expect(stored.attempts.map((attempt) => attempt.status)).toEqual([200, 200]);
    const missing = await stack.service.request(
      'POST',
      `/webhooks/${WebhookId}/deliveries/${'0'.repeat(32)}/redeliver`,
      {
        apiKey: stack.fulfilmentKey,
      },
    );
    expect(missing.status).toBe(404);
    expect(missing.body.Error.Code).toBe('DeliveryNotFound');
  }, 30_000);

  it('gives up after the last attempt of the schedule: Failed', async () => {
    const { WebhookId } = await stack.register(stack.fulfilmentKey, '/down', ['OrderStatusChanged']);
    stack.receiver.script('/down', [503, 503, 503, 503]);
    const event = await commitStatusEvent('b'.repeat(32));
    const deliveryId = deliveryIdFor(event.id, WebhookId, event.time);
    const stored = await until(
      'the Failed state',
      async () => {
        const found = await getDelivery(WebhookId, deliveryId);
        return found?.state === 'Failed' && found;
      },
      15_000,
    );
    expect(stored.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503]);
    const webhook = await stack.service.request('GET', `/webhooks/${WebhookId}`, { apiKey: stack.fulfilmentKey });
    expect(webhook.body.Status).toBe('Enabled');
  }, 30_000);

  it('a repeated fan-out of a Failed delivery sends nothing more', async () => {
    const { WebhookId } = await stack.register(stack.fulfilmentKey, '/gone-quiet', ['OrderStatusChanged']);
    stack.receiver.script('/gone-quiet', Array(12).fill(500));
    const event = await commitStatusEvent('c'.repeat(32));
    const deliveryId = deliveryIdFor(event.id, WebhookId, event.time);
    await until('the Failed state', async () => (await getDelivery(WebhookId, deliveryId))?.state === 'Failed', 15_000);
    await fanOut(event);
    await quiet();
    expect(stack.receiver.to('/gone-quiet')).toHaveLength(3);
    expect((await getDelivery(WebhookId, deliveryId))?.attemptCount).toBe(3);
  }, 30_000);

  it('a repeated fan-out during retries runs no second schedule', async () => {
    const { WebhookId } = await stack.register(stack.fulfilmentKey, '/recovering', ['OrderStatusChanged']);
    stack.receiver.script('/recovering', [500, 500, 200]);
    const event = await commitStatusEvent('d'.repeat(32));
    const deliveryId = deliveryIdFor(event.id, WebhookId, event.time);
    await until(
      'the first attempt',
      async () => ((await getDelivery(WebhookId, deliveryId))?.attemptCount ?? 0) >= 1,
      15_000,
    );
    await fanOut(event);
    await until('Delivered', async () => (await getDelivery(WebhookId, deliveryId))?.state === 'Delivered', 15_000);
    await quiet();
    expect(stack.receiver.to('/recovering')).toHaveLength(3);
    expect((await getDelivery(WebhookId, deliveryId))?.attemptCount).toBe(3);
  }, 30_000);
});
