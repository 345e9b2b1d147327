/**
 * Webhook deliveries end to end on the local stack, over HTTP to a loopback receiver: an order completed
 * through the API reaches the receiver as one POST that `standardwebhooks` verifies with the webhook's
 * secret; failures are retried on the schedule (WEBHOOK_RETRY_SCHEDULE=1,1: three attempts, one webhook-id)
 * and logged; a 410 disables the webhook at once; during a rotation each delivery carries two signatures,
 * each verifying with its own secret. Events other than the order's are written as committed outbox records
 * (store/outbox-store.ts), as a change commits them.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import type { Delivery } from '../../functions/domain/webhook-delivery.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

let service: TestService;
let receiver: Server;
let receiverUrl: string;
/** What the receiver got, by path. */
const received = new Map<string, Received[]>();
/** The statuses the receiver answers on a path, in turn; 200 once they are used up. */
const scripts = new Map<string, number[]>();
let siteKey: string;
let fulfilmentKey: string;
let alice: string;
let transact: typeof import('../../functions/store/transaction.ts').transact;
let recordEvent: typeof import('../../functions/store/outbox-store.ts').recordEvent;
let getDelivery: typeof import('../../functions/store/webhook-delivery-store.ts').getDelivery;
let deliveryIdFor: typeof import('../../functions/domain/webhook-delivery.ts').deliveryIdFor;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.set(path, [
        ...(received.get(path) ?? []),
        { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() },
      ]);
      response.writeHead(scripts.get(path)?.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  service = await startTestService({
    env: { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1' },
    renditions: false,
    streamPollMs: 50,
  });
  siteKey = await service.apiKey('deliveries-site', 'site');
  fulfilmentKey = await service.apiKey('deliveries-fulfilment', 'fulfilment');
  alice = await service.token('alice-webhooks');
  ({ transact } = await import('../../functions/store/transaction.ts'));
  ({ recordEvent } = await import('../../functions/store/outbox-store.ts'));
  ({ getDelivery } = await import('../../functions/store/webhook-delivery-store.ts'));
  ({ deliveryIdFor } = await import('../../functions/domain/webhook-delivery.ts'));
});
afterAll(async () => {
  await service?.close();
  receiver?.close();
});

async function register(apiKey: string, path: string, EventTypes: string[]) {
  const created = await service.request('POST', '/webhooks', {
    apiKey,
    json: { Url: `${receiverUrl}${path}`, EventTypes },
  });
  expect(created.status, created.text).toBe(200);
  return created.body as { WebhookId: string; Secret: string };
}

async function until<T>(
  what: string,
  probe: () => T | Promise<T>,
  timeoutMs = 10_000,
): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Exclude<T, false | null | undefined>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const deliveriesTo = (path: string) => received.get(path) ?? [];
const headerRecord = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

/** Commits an OrderStatusChanged event as a status change would (the outbox record of its transaction). */
async function commitStatusEvent(orderGuid: string): Promise<{ id: string; time: number }> {
  const event = {
    type: 'OrderStatusChanged' as const,
    id: `OrderStatusChanged-${orderGuid}-2`,
    time: Date.now(),
    detail: { OrderGuid: orderGuid, Status: 'Processing' },
  };
  expect((await transact([recordEvent(event)])).committed).toBe(true);
  return event;
}

describe('webhook deliveries', () => {
  it("costs a change's commit no round trip more with subscribers than without", async () => {
    const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
    const { runningFunction } = await import('../../lib/local/source-invocations.ts');
    const calls: string[] = [];
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        if (runningFunction() === 'update-order-status') calls.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countStatusChangeCalls' },
    );
    try {
      const project = await service.project(7);
      const basketGuid = (await service.request('POST', '/basket', { token: alice })).body.Guid as string;
      await service.request('POST', `/basket/${basketGuid}/line`, {
        token: alice,
        json: { ProjectGuid: project, Quantity: 1 },
      });
      const checkout = await service.request('POST', `/basket/${basketGuid}/checkout`, { token: alice });
      const checkoutId = (checkout.body.CheckoutUrl as string).split('/').pop() as string;
      const order = await service.request('POST', `/checkout/${checkoutId}/complete`, {
        apiKey: siteKey,
        json: { PaymentReference: 'psp-round-trips' },
      });
      const path = `/order/${order.body.Order.OrderGuid}/status`;
      // No webhook subscribes to OrderStatusChanged yet.
      expect(
        (await service.request('PUT', path, { apiKey: fulfilmentKey, json: { Status: 'Processing' } })).status,
      ).toBe(200);
      const without = [...calls];
      calls.length = 0;
      await register(fulfilmentKey, '/round-trips', ['OrderStatusChanged']);
      await register(siteKey, '/round-trips-site', ['OrderStatusChanged']);
      expect((await service.request('PUT', path, { apiKey: fulfilmentKey, json: { Status: 'Shipped' } })).status).toBe(
        200,
      );
      expect(calls).toEqual(without);
      await until(
        'the deliveries',
        () => deliveriesTo('/round-trips').length > 0 && deliveriesTo('/round-trips-site').length > 0,
      );
    } finally {
      dynamoDbClient.middlewareStack.remove('countStatusChangeCalls');
    }
  });

  it('delivers a completed order within 2 s, signed so that standardwebhooks verifies it', async () => {
    const { WebhookId, Secret } = await register(siteKey, '/orders', ['OrderCreated']);
    const project = await service.project(12.5);
    const basketGuid = (await service.request('POST', '/basket', { token: alice })).body.Guid as string;
    await service.request('POST', `/basket/${basketGuid}/line`, {
      token: alice,
      json: { ProjectGuid: project, Quantity: 2 },
    });
    const checkout = await service.request('POST', `/basket/${basketGuid}/checkout`, { token: alice });
    const checkoutId = (checkout.body.CheckoutUrl as string).split('/').pop() as string;
    const completed = await service.request('POST', `/checkout/${checkoutId}/complete`, {
      apiKey: siteKey,
      json: { PaymentReference: 'psp-webhook-1' },
    });
    expect(completed.status, completed.text).toBe(200);
    const committedAt = Date.now();

    const [delivery] = await until(
      'the order delivery',
      () => deliveriesTo('/orders').length > 0 && deliveriesTo('/orders'),
    );
    expect(delivery!.at - committedAt).toBeLessThan(2_000);
    expect(delivery!.headers['content-type']).toBe('application/json');
    const payload = new StandardWebhook(Secret).verify(delivery!.body, headerRecord(delivery!.headers)) as {
      type: string;
      timestamp: string;
      data: Record<string, unknown>;
    };
    expect(payload.type).toBe('OrderCreated');
    expect(payload.data.OrderGuid).toBe(completed.body.Order.OrderGuid);
    expect(Date.parse(payload.timestamp)).toBeGreaterThan(0);
    expect(() =>
      new StandardWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        delivery!.body,
        headerRecord(delivery!.headers),
      ),
    ).toThrow();

    const stored = await until('the Delivered state', async () => {
      const found = await getDelivery(WebhookId, delivery!.headers['webhook-id'] as string);
      return found?.state === 'Delivered' && found;
    });
    expect(stored.attempts).toHaveLength(1);
    expect(stored.attempts[0]).toMatchObject({ status: 200 });
  });

  it('retries 500, 500, then 200: three attempts with one webhook-id, Delivered, each attempt logged', async () => {
    const { WebhookId } = await register(fulfilmentKey, '/flaky', ['OrderStatusChanged']);
    scripts.set('/flaky', [500, 500]);
    const event = await commitStatusEvent('a'.repeat(32));
    const attempts = await until(
      'three attempts',
      () => deliveriesTo('/flaky').length >= 3 && deliveriesTo('/flaky'),
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
    expect(deliveriesTo('/flaky')).toHaveLength(3);

    // The log answers the same, newest first, to the owning key only.
    const log = await service.request('GET', `/webhooks/${WebhookId}/deliveries`, { apiKey: fulfilmentKey });
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
    const foreign = await service.request('GET', `/webhooks/${WebhookId}/deliveries`, { apiKey: siteKey });
    expect(foreign.status).toBe(404);
  }, 30_000);

  it('redelivers a delivery: the same webhook-id, a new timestamp and signature, logged as a new attempt', async () => {
    const { WebhookId, Secret } = await register(fulfilmentKey, '/again', ['OrderStatusChanged']);
    const event = await commitStatusEvent('9'.repeat(32));
    const deliveryId = deliveryIdFor(event.id, WebhookId, event.time);
    await until('the first delivery', () => deliveriesTo('/again').length === 1);
    await until('Delivered', async () => (await getDelivery(WebhookId, deliveryId))?.state === 'Delivered');
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // a later second for the new timestamp

    const path = `/webhooks/${WebhookId}/deliveries/${deliveryId}/redeliver`;
    expect((await service.request('POST', path, { apiKey: siteKey })).status).toBe(404);
    const redelivered = await service.request('POST', path, { apiKey: fulfilmentKey });
    expect(redelivered.status, redelivered.text).toBe(200);
    expect(redelivered.body).toEqual({ DeliveryId: deliveryId, State: 'Pending' });
    const [first, second] = await until(
      'the redelivery',
      () => deliveriesTo('/again').length === 2 && deliveriesTo('/again'),
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
    const missing = await service.request('POST', `/webhooks/${WebhookId}/deliveries/${'0'.repeat(32)}/redeliver`, {
      apiKey: fulfilmentKey,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.Error.Code).toBe('DeliveryNotFound');
  }, 30_000);

  it('gives up after the last attempt of the schedule: Failed', async () => {
    const { WebhookId } = await register(fulfilmentKey, '/down', ['OrderStatusChanged']);
    scripts.set('/down', [503, 503, 503, 503]);
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
    const webhook = await service.request('GET', `/webhooks/${WebhookId}`, { apiKey: fulfilmentKey });
    expect(webhook.body.Status).toBe('Enabled');
  }, 30_000);

  it('disables the webhook at a 410 and sends it nothing more', async () => {
    const { WebhookId } = await register(fulfilmentKey, '/gone', ['OrderStatusChanged']);
    scripts.set('/gone', [410]);
    await commitStatusEvent('c'.repeat(32));
    await until('the 410', () => deliveriesTo('/gone').length === 1);
    const webhook = await until('the webhook disabled', async () => {
      const read = await service.request('GET', `/webhooks/${WebhookId}`, { apiKey: fulfilmentKey });
      return read.body.Status === 'Disabled' && read.body;
    });
    expect(webhook.Status).toBe('Disabled');
    await commitStatusEvent('d'.repeat(32));
    await service.drainEvents();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(deliveriesTo('/gone')).toHaveLength(1);
  }, 30_000);

  it('signs with the old and the new secret during a rotation, each signature verifying with its secret', async () => {
    const { WebhookId, Secret: oldSecret } = await register(fulfilmentKey, '/rotating', ['OrderStatusChanged']);
    const rotated = await service.request('POST', `/webhooks/${WebhookId}/secret`, { apiKey: fulfilmentKey });
    const newSecret = rotated.body.Secret as string;
    await commitStatusEvent('e'.repeat(32));
    const [delivery] = await until(
      'the delivery',
      () => deliveriesTo('/rotating').length > 0 && deliveriesTo('/rotating'),
    );
    const signatures = String(delivery!.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const [secret, signature] of [
      [newSecret, signatures[0]],
      [oldSecret, signatures[1]],
    ] as const) {
      const alone = { ...headerRecord(delivery!.headers), 'webhook-signature': signature! };
      expect(() => new StandardWebhook(secret).verify(delivery!.body, alone)).not.toThrow();
    }
    expect(() =>
      new StandardWebhook(oldSecret).verify(delivery!.body, {
        ...headerRecord(delivery!.headers),
        'webhook-signature': signatures[0]!,
      }),
    ).toThrow();
  });

  it("sends a key only what its scope reads: a site key's OrderStatusChanged webhook, not a library key's", async () => {
    const libraryKey = await service.apiKey('deliveries-library', 'library');
    const refused = await service.request('POST', '/webhooks', {
      apiKey: libraryKey,
      json: { Url: `${receiverUrl}/library`, EventTypes: ['OrderStatusChanged'] },
    });
    expect(refused.status).toBe(403);
    await register(siteKey, '/site-status', ['OrderStatusChanged']);
    await commitStatusEvent('f'.repeat(32));
    await until('the site delivery', () => deliveriesTo('/site-status').length > 0);
    expect(deliveriesTo('/library')).toHaveLength(0);
  });
});
