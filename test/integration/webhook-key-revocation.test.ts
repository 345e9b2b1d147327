/**
 * Revoking an API key silences its webhooks at once: the revocation disables them in its transaction (the
 * fan-out finds them no more), and a delivery made for one its owner enabled again after the revocation (in
 * AWS, within the authorizer's cache) is not sent: it ends Failed saying why, and the webhook goes disabled.
 * A live key's webhook hears the same events, so the silence is the revocation's, not a stalled pipeline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitStatusEvent, startWebhookStack, until, type WebhookStack } from '../support/webhooks.ts';
import { changed, KEY_REVOKED } from '../../functions/domain/webhook.ts';
import { deliveryIdFor } from '../../functions/domain/webhook-delivery.ts';

const KEY_NAME = 'revoked-site';
/** How long a revoked key's receiver is watched for a request after each event. */
const SILENCE_MS = 10_000;

let stack: WebhookStack;
let store: typeof import('../../functions/store/webhook-store.ts');
let deliveries: typeof import('../../functions/store/webhook-delivery-store.ts');
// The store modules make their clients on import: imported once the service has set the environment.
let keys: typeof import('../../functions/store/api-key-store.ts');

beforeAll(async () => {
  stack = await startWebhookStack();
  store = await import('../../functions/store/webhook-store.ts');
  deliveries = await import('../../functions/store/webhook-delivery-store.ts');
  keys = await import('../../functions/store/api-key-store.ts');
});
afterAll(() => stack?.close());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a revoked key', () => {
  it('takes its webhooks with it: no request reaches them, and the records say why', async () => {
    const { apiKey: siteKey } = await keys.createApiKey(KEY_NAME, 'site', Date.now());
    const ownerKeyId = keys.hashApiKey(siteKey).slice(0, 12);
    const status = await stack.register(siteKey, '/revoked-status', ['OrderStatusChanged']);
    await stack.register(siteKey, '/revoked-created', ['OrderCreated']);
    await stack.register(stack.fulfilmentKey, '/live', ['OrderStatusChanged']);

    expect(await keys.revokeApiKey(KEY_NAME)).toEqual({ webhooksDisabled: 2 });
    expect((await stack.service.request('GET', '/webhooks', { apiKey: siteKey })).status).toBe(401);
    for (const webhook of await store.listWebhooks(ownerKeyId))
      expect(webhook).toMatchObject({ status: 'Disabled', disabledReason: KEY_REVOKED });

    await commitStatusEvent('c'.repeat(32));
    await until('the live key hearing the event', () => stack.receiver.to('/live').length === 1, 30_000);
    await pause(SILENCE_MS);
    expect(stack.receiver.to('/revoked-status')).toEqual([]);
    expect(stack.receiver.to('/revoked-created')).toEqual([]);

    // Its owner enables the webhook again with the revoked key still cached (AWS): the delivery checks the key.
    const read = (await store.getWebhook(ownerKeyId, status.WebhookId))!;
    expect(await store.replaceWebhook(read, changed(read, { status: 'Enabled' }))).toBe(true);
    const event = await commitStatusEvent('d'.repeat(32));
    const deliveryId = deliveryIdFor(event.id, status.WebhookId, event.time);
    const unsent = await until(
      'the delivery ending Failed',
      async () => {
        const found = await deliveries.getDelivery(status.WebhookId, deliveryId);
        return found?.state === 'Failed' && found;
      },
      30_000,
    );
    expect(unsent).toMatchObject({ attempts: [], notSentReason: `not sent: ${KEY_REVOKED}` });
    await until('the live key hearing the second event', () => stack.receiver.to('/live').length === 2, 30_000);
    await pause(SILENCE_MS);
    expect(stack.receiver.to('/revoked-status')).toEqual([]);
    expect(await store.getWebhook(ownerKeyId, status.WebhookId)).toMatchObject({
      status: 'Disabled',
      disabledReason: KEY_REVOKED,
    });
  }, 120_000);

  it("with 20 webhooks on all four of a site key's event types (103 writes, past one transaction): all disabled", async () => {
    const name = 'revoked-busy-site';
    const { apiKey } = await keys.createApiKey(name, 'site', Date.now());
    const ownerKeyId = keys.hashApiKey(apiKey).slice(0, 12);
    for (let index = 0; index < 20; index++)
      await stack.register(apiKey, `/busy-${index}`, [
        'BasketCheckedOut',
        'OrderCreated',
        'OrderStatusChanged',
        'OrderCancelled',
      ]);
    expect(await keys.revokeApiKey(name)).toEqual({ webhooksDisabled: 20 });
    expect((await stack.service.request('GET', '/webhooks', { apiKey })).status).toBe(401);
    expect(await keys.revokeApiKey(name)).toBeUndefined();
    const webhooks = await store.listWebhooks(ownerKeyId);
    expect(webhooks).toHaveLength(20);
    for (const webhook of webhooks) expect(webhook).toMatchObject({ status: 'Disabled', disabledReason: KEY_REVOKED });
    expect(await store.listSubscribers('OrderCancelled')).not.toContainEqual(expect.objectContaining({ ownerKeyId }));
  }, 120_000);
});
