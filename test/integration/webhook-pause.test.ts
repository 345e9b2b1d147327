/**
 * A partner failing past the pause window (WEBHOOK_PAUSE_AFTER_MINUTES, 15) is paused, over HTTP against the
 * local stack: time is moved by starting its failure streak 20 minutes back (the streak the delivery
 * function records, written as a failure then would write it). Its next failure pauses it (GET answers
 * Paused), later events wait in its log (State Paused, saying why) and reach nobody, only probes of the
 * delivery that paused it go out (WEBHOOK_PROBE_SECONDS=1), and once one succeeds it is Enabled again and
 * receives every waiting delivery once. They are queued oldest first (the second test pages the sharded log
 * and waiting list in order); two deliveries run at once locally, so they may arrive a place apart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryIdFor, WAITING_REASON } from '../../functions/domain/webhook-delivery.ts';
import { commitStatusEvent, startWebhookStack, until, type WebhookStack } from '../support/webhooks.ts';

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack({
    WEBHOOK_RETRY_SCHEDULE: '60,60',
    WEBHOOK_PROBE_SECONDS: '1',
  });
}, 60_000);
afterAll(() => stack?.close());

const idsAt = (path: string) => stack.receiver.to(path).map((request) => request.headers['webhook-id']);

describe('a partner failing past the pause window', { timeout: 90_000 }, () => {
  it('is paused, probed, and on the first success receives what waited, oldest first', async () => {
    const store = await import('../../functions/store/webhook-store.ts');
    const { hashApiKey } = await import('../../functions/store/api-key-store.ts');
    const keyIdOf = (apiKey: string) => hashApiKey(apiKey).slice(0, 12);
    const { WebhookId } = await stack.register(stack.fulfilmentKey, '/down', ['OrderStatusChanged']);
    const getWebhook = async () =>
      (await stack.service.request('GET', `/webhooks/${WebhookId}`, { apiKey: stack.fulfilmentKey })).body;
    stack.receiver.script(
      '/down',
      Array.from({ length: 1_000 }, () => 503),
    );
    const read = (await store.getWebhook(keyIdOf(stack.fulfilmentKey), WebhookId))!;
    await store.recordDeliveryStreak(read, false, Date.now() - 20 * 60_000);

    const first = await commitStatusEvent('1'.repeat(32));
    const firstId = deliveryIdFor(first.id, WebhookId, first.time);
    const paused = await until(
      'the webhook Paused',
      async () => {
        const webhook = await getWebhook();
        return webhook.Status === 'Paused' && webhook;
      },
      30_000,
    );
    expect(paused.PausedDateUtc).toMatch(/^\/Date\(\d+\)\/$/);

    const waiting = [];
    for (const guid of ['2', '3', '4']) waiting.push(await commitStatusEvent(guid.repeat(32)));
    const waitingIds = waiting.map((event) => deliveryIdFor(event.id, WebhookId, event.time));
    const log = async () =>
      (await stack.service.request('GET', `/webhooks/${WebhookId}/deliveries`, { apiKey: stack.fulfilmentKey })).body
        .Deliveries as { DeliveryId: string; State: string; NotSentReason?: string }[];
    const logged = await until('the waiting deliveries in the log', async () => {
      const deliveries = await log();
      return waitingIds.every((id) => deliveries.some((delivery) => delivery.DeliveryId === id)) && deliveries;
    });
    for (const id of waitingIds)
      expect(logged.find((delivery) => delivery.DeliveryId === id)).toMatchObject({
        State: 'Paused',
        NotSentReason: WAITING_REASON,
      });
    // A waiting delivery goes out with the resume: a redelivery of it now is refused, and takes nothing.
    const redeliver = await stack.service.request(
      'POST',
      `/webhooks/${WebhookId}/deliveries/${waitingIds[0]}/redeliver`,
      { apiKey: stack.fulfilmentKey },
    );
    expect(redeliver.status, redeliver.text).toBe(409);
    expect(redeliver.body.Error.Code).toBe('DeliveryPending');

    // The first attempt and two probes, every one of them the delivery that paused it.
    await until('two probes', () => stack.receiver.to('/down').length >= 3, 30_000);
    expect(new Set(idsAt('/down'))).toEqual(new Set([firstId]));
    expect((await getWebhook()).Status).toBe('Paused');

    // SQS repeats: a redelivery's message after the probes began is dropped, sending nothing; the probe that made
    // the latest attempt queues only its next probe (a second of one attempt dies). The chain goes on alone.
    const { attemptDelivery } = await import('../../functions/services/webhook-delivery-service.ts');
    const { getDelivery } = await import('../../functions/store/webhook-delivery-store.ts');
    const ownerKeyId = keyIdOf(stack.fulfilmentKey);
    const probed = (await getDelivery(WebhookId, firstId))!;
    const redelivery = { webhookId: WebhookId, ownerKeyId, deliveryId: firstId, redelivery: true as const };
    expect(await attemptDelivery(redelivery, 1, 'a-repeated-redelivery')).toBeUndefined();
    const pausedAt = (await store.getWebhook(ownerKeyId, WebhookId))!.pausedAt!;
    const probe = { webhookId: WebhookId, ownerKeyId, deliveryId: firstId, attempt: 1, probe: pausedAt };
    expect(await attemptDelivery(probe, 1, probed.attemptMessageId!)).toBeUndefined();
    // Neither made an attempt: only the probes that run on the queue do.
    const after = (await getDelivery(WebhookId, firstId))!;
    expect(after.state).toBe('Paused');
    expect(after.attemptMessageId).not.toBe('a-repeated-redelivery');

    // The receiver comes back: the next probe succeeds, and the waiting deliveries follow, oldest first.
    stack.receiver.script('/down', []);
    const succeededAt = stack.receiver.to('/down').length;
    await until('every waiting delivery', () => idsAt('/down').length >= succeededAt + 1 + waitingIds.length, 30_000);
    const afterSuccess = idsAt('/down').slice(succeededAt);
    expect(afterSuccess[0]).toBe(firstId);
    expect(afterSuccess.slice(1).sort()).toEqual([...waitingIds].sort());
    expect(await getWebhook()).toMatchObject({ Status: 'Enabled' });
    expect((await getWebhook()).PausedDateUtc).toBeUndefined();
    const settled = await until('all Delivered', async () => {
      const deliveries = await log();
      return deliveries.every((delivery) => delivery.State === 'Delivered') && deliveries;
    });
    expect(settled).toHaveLength(4);
    // The probe's delivery, on the waiting list too, is not sent twice.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(idsAt('/down').filter((id) => id === firstId)).toHaveLength(succeededAt + 1);
  });

  it('pages a log spread over its shards newest first, and a waiting list oldest first, each item once', async () => {
    const { createDelivery } = await import('../../functions/store/webhook-delivery-store.ts');
    const { addWaiting, oldestWaiting, removeWaiting } = await import('../../functions/store/webhook-waiting-store.ts');
    const { WebhookId } = await stack.register(stack.fulfilmentKey, '/paged', ['OrderStatusChanged']);
    const base = Date.now() - 60_000;
    const made = Array.from({ length: 120 }, (_, index) => ({
      deliveryId: deliveryIdFor(`event-${index}`, WebhookId, base + index),
      webhookId: WebhookId,
      eventType: 'OrderStatusChanged' as const,
      eventId: `event-${index}`,
      createdAt: base + index,
      state: 'Paused' as const,
      attempts: [],
      body: '{}',
    }));
    const { withCorrelationId } = await import('../../functions/shared/correlation.ts');
    for (const delivery of made) {
      await createDelivery(delivery);
      // Each waits with the request id of the work that made it, which its attempts log once it is queued again.
      await withCorrelationId(`request-${delivery.eventId}`, () => addWaiting(delivery));
    }
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await stack.service.request(
        'GET',
        `/webhooks/${WebhookId}/deliveries?limit=50${cursor ? `&cursor=${cursor}` : ''}`,
        { apiKey: stack.fulfilmentKey },
      );
      expect(page.status, page.text).toBe(200);
      listed.push(...page.body.Deliveries.map((delivery: { DeliveryId: string }) => delivery.DeliveryId));
      cursor = page.body.NextCursor;
    } while (cursor);
    const newestFirst = made.map((delivery) => delivery.deliveryId).reverse();
    expect(listed).toEqual(newestFirst);

    const taken: string[] = [];
    for (;;) {
      const { waiting, more } = await oldestWaiting(WebhookId, 50);
      const deliveryIds = waiting.map((delivery) => delivery.deliveryId);
      for (const delivery of waiting)
        expect(delivery.correlationId).toBe(
          `request-${made.find((m) => m.deliveryId === delivery.deliveryId)?.eventId}`,
        );
      taken.push(...deliveryIds);
      await removeWaiting(WebhookId, deliveryIds);
      if (!more) break;
    }
    expect(taken).toEqual([...newestFirst].reverse());
  });

  it("stops probing a paused webhook once its key is revoked: the probe's delivery ends Failed, not sent", async () => {
    const keys = await import('../../functions/store/api-key-store.ts');
    const store = await import('../../functions/store/webhook-store.ts');
    const { getDelivery } = await import('../../functions/store/webhook-delivery-store.ts');
    const { apiKey } = await keys.createApiKey('paused-then-revoked', 'fulfilment', Date.now());
    const { WebhookId } = await stack.register(apiKey, '/revoked', ['OrderStatusChanged']);
    stack.receiver.script(
      '/revoked',
      Array.from({ length: 1_000 }, () => 503),
    );
    const read = (await store.getWebhook(keys.hashApiKey(apiKey).slice(0, 12), WebhookId))!;
    await store.recordDeliveryStreak(read, false, Date.now() - 20 * 60_000);
    const event = await commitStatusEvent('5'.repeat(32));
    const deliveryId = deliveryIdFor(event.id, WebhookId, event.time);
    await until('the webhook paused', async () => {
      const webhook = await store.getWebhook(read.ownerKeyId, WebhookId);
      return webhook?.pausedAt !== undefined;
    });
    expect(await keys.revokeApiKey('paused-then-revoked')).toEqual({ webhooksDisabled: 1 });
    const settled = await until('the probe settled unsent', async () => {
      const delivery = await getDelivery(WebhookId, deliveryId);
      return delivery?.state === 'Failed' && delivery;
    });
    expect(settled.notSentReason).toBe('not sent: its API key was revoked');
    const sent = stack.receiver.to('/revoked').length;
    // The probe chain ended with it: two probe intervals later nothing more has reached the receiver.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(stack.receiver.to('/revoked')).toHaveLength(sent);
  });
});
