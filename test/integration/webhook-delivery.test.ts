/**
 * Webhook deliveries end to end on the local stack, over HTTP to a loopback receiver: an order completed
 * through the API reaches the receiver as one POST that `standardwebhooks` verifies with the webhook's
 * secret (in the lab's partner form: webhook-partner-forms.test.ts checks every form); a 410 disables the webhook at once; during a rotation each delivery carries two signatures, each
 * verifying with its own secret; a key hears only what its scope reads. How soon a delivery follows its
 * commit is measured by `npm run bench` (figure 10), not here. Retries: webhook-retries.test.ts.
 */
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitStatusEvent, headerRecord, startWebhookStack, type WebhookStack, until } from '../support/webhooks.ts';

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack({ WEBHOOK_RETRY_SCHEDULE: '1,1' });
});
afterAll(() => stack?.close());

describe('webhook deliveries', () => {
  it("delivers a completed order to the lab's webhook, signed so that standardwebhooks verifies it", async () => {
    const { WebhookId, Secret } = await stack.register(stack.fulfilmentKey, '/orders', ['OrderCreated']);
    const project = await stack.service.project(12.5);
    const basketGuid = (await stack.service.request('POST', '/basket', { token: stack.alice })).body.Guid as string;
    await stack.service.request('POST', `/basket/${basketGuid}/line`, {
      token: stack.alice,
      json: { ProjectGuid: project, Quantity: 2 },
    });
    const checkout = await stack.service.request('POST', `/basket/${basketGuid}/checkout`, { token: stack.alice });
    const checkoutId = (checkout.body.CheckoutUrl as string).split('/').pop() as string;
    const completed = await stack.service.request('POST', `/checkout/${checkoutId}/complete`, {
      apiKey: stack.siteKey,
      json: { PaymentReference: 'psp-webhook-1' },
    });
    expect(completed.status, completed.text).toBe(200);

    const [delivery] = await until(
      'the order delivery',
      () => stack.receiver.to('/orders').length > 0 && stack.receiver.to('/orders'),
    );
    expect(delivery!.headers['content-type']).toBe('application/json');
    const payload = new StandardWebhook(Secret).verify(delivery!.body, headerRecord(delivery!.headers)) as {
      type: string;
      timestamp: string;
      data: Record<string, unknown>;
    };
    expect(payload.type).toBe('OrderCreated');
    expect(payload.data.OrderGuid).toBe(completed.body.Order.OrderGuid);
    // Where the lab reads the order's artwork, never a URL that expires before a late delivery; no user's id.
    expect(payload.data.ArtworkPath).toBe(`/order/${completed.body.Order.OrderGuid}/artwork`);
    expect(payload.data).not.toHaveProperty('UserId');
    expect(payload.data).not.toHaveProperty('PaymentReference');
    expect(Date.parse(payload.timestamp)).toBeGreaterThan(0);
    expect(() =>
      new StandardWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        delivery!.body,
        headerRecord(delivery!.headers),
      ),
    ).toThrow();

    // The delivery log says so, with the one attempt.
    const logged = await until('the Delivered state', async () => {
      const log = await stack.service.request('GET', `/webhooks/${WebhookId}/deliveries`, {
        apiKey: stack.fulfilmentKey,
      });
      const [entry] = log.body.Deliveries as { DeliveryId: string; State: string; Attempts: { Status: number }[] }[];
      return entry?.State === 'Delivered' && entry;
    });
    expect(logged.DeliveryId).toBe(delivery!.headers['webhook-id']);
    expect(logged.Attempts.map((attempt) => attempt.Status)).toEqual([200]);
  });

  it('disables the webhook at a 410 and sends it nothing more', async () => {
    const { WebhookId } = await stack.register(stack.fulfilmentKey, '/gone', ['OrderStatusChanged']);
    stack.receiver.script('/gone', [410]);
    await commitStatusEvent('c'.repeat(32));
    await until('the 410', () => stack.receiver.to('/gone').length === 1);
    const webhook = await until('the webhook disabled', async () => {
      const read = await stack.service.request('GET', `/webhooks/${WebhookId}`, { apiKey: stack.fulfilmentKey });
      return read.body.Status === 'Disabled' && read.body;
    });
    expect(webhook.Status).toBe('Disabled');
    await commitStatusEvent('d'.repeat(32));
    await stack.service.drainEvents();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(stack.receiver.to('/gone')).toHaveLength(1);
  }, 30_000);

  it('signs with the old and the new secret during a rotation, each signature verifying with its secret', async () => {
    const { WebhookId, Secret: oldSecret } = await stack.register(stack.fulfilmentKey, '/rotating', [
      'OrderStatusChanged',
    ]);
    const rotated = await stack.service.request('POST', `/webhooks/${WebhookId}/secret`, {
      apiKey: stack.fulfilmentKey,
    });
    const newSecret = rotated.body.Secret as string;
    await commitStatusEvent('e'.repeat(32));
    const [delivery] = await until(
      'the delivery',
      () => stack.receiver.to('/rotating').length > 0 && stack.receiver.to('/rotating'),
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
    const libraryKey = await stack.service.apiKey('deliveries-library', 'library');
    const refused = await stack.service.request('POST', '/webhooks', {
      apiKey: libraryKey,
      json: { Url: `${stack.receiver.url}/library`, EventTypes: ['OrderStatusChanged'] },
    });
    expect(refused.status).toBe(403);
    await stack.register(stack.siteKey, '/site-status', ['OrderStatusChanged']);
    await commitStatusEvent('f'.repeat(32));
    await until('the site delivery', () => stack.receiver.to('/site-status').length > 0);
    expect(stack.receiver.to('/library')).toHaveLength(0);
  });
});
