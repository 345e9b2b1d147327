/**
 * The webhook rules without AWS: which types a key's scope may subscribe to, who receives an event, what
 * follows a delivery attempt (the retry schedule, 410, five days of failures), changes and rotations.
 */
import { describe, expect, it } from 'vitest';
import {
  changed,
  checkEventTypes,
  MAX_WEBHOOKS_PER_KEY,
  rotated,
  ROTATION_OVERLAP_MS,
  subscribedTypes,
  type Webhook,
} from '../../functions/domain/webhook.ts';
import {
  attemptOutcome,
  deliveryBody,
  deliveryIdFor,
  FAILING_DISABLE_MS,
  messageAction,
  type Delivery,
} from '../../functions/domain/webhook-delivery.ts';
import { EVENT_SUBSCRIPTIONS, receives, subscribableBy } from '../../functions/webhooks/event-subscriptions.ts';
import { DOMAIN_EVENT_TYPES } from '../../functions/shared/event-types.ts';
import type { DomainError } from '../../functions/shared/errors.ts';

const STANDARD_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];
const PAUSE_AFTER_MS = 15 * 60_000;
const NOT_FAILING = { since: undefined, pauseAfterMs: PAUSE_AFTER_MS };

const webhook: Webhook = {
  webhookId: 'a'.repeat(32),
  ownerKeyId: 'key-1',
  ownerScope: 'site',
  url: 'https://partner.example.com/hooks',
  eventTypes: ['OrderCreated'],
  status: 'Enabled',
  createdAt: 1,
  revision: 1,
  sealedSecret: 'sealed-1',
};

const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return { kind: (error as DomainError).kind, code: (error as DomainError).code, message: (error as Error).message };
  }
  return undefined;
};

describe('event subscriptions', () => {
  it('offer every published event type', () => {
    expect(Object.keys(EVENT_SUBSCRIPTIONS).sort()).toEqual([...DOMAIN_EVENT_TYPES].sort());
  });

  it('let a scope subscribe only to what it reads through the API', () => {
    expect(subscribableBy('fulfilment')).toEqual(['OrderCreated', 'OrderStatusChanged', 'OrderCancelled']);
    expect(subscribableBy('site')).toEqual([
      'BasketCheckedOut',
      'OrderCreated',
      'OrderStatusChanged',
      'OrderCancelled',
    ]);
    expect(subscribableBy('library')).toEqual(['LibraryItemsAdded', 'LibraryItemRenditionsDecided']);
    expect(subscribableBy('catalog')).toEqual([]);
  });

  it('refuse an unknown type (400) and a type outside the scope (403), naming it; repeats count once', () => {
    expect(checkEventTypes(['OrderCreated', 'OrderCreated'], 'site')).toEqual(['OrderCreated']);
    expect(refusal(() => checkEventTypes(['OrderShipped'], 'site'))).toMatchObject({
      kind: 'Invalid',
      code: 'UnknownEventType',
      message: expect.stringContaining('"OrderShipped"'),
    });
    expect(refusal(() => checkEventTypes(['LibraryItemsAdded'], 'fulfilment'))).toMatchObject({
      kind: 'Forbidden',
      message: expect.stringMatching(/LibraryItemsAdded is not open to API keys of scope fulfilment/),
    });
  });

  it('send a library event only to the webhooks of the key that caused it', () => {
    const event = { type: 'LibraryItemsAdded' as const, id: 'e', time: 0, detail: { ApiKeyId: 'key-1' } };
    expect(receives({ ownerKeyId: 'key-1', ownerScope: 'library' }, event)).toBe(true);
    expect(receives({ ownerKeyId: 'key-2', ownerScope: 'library' }, event)).toBe(false);
    const order = { type: 'OrderCreated' as const, id: 'o', time: 0, detail: {} };
    expect(receives({ ownerKeyId: 'key-2', ownerScope: 'site' }, order)).toBe(true);
    // A key whose scope no longer reads orders (a stale index item) receives nothing.
    expect(receives({ ownerKeyId: 'key-2', ownerScope: 'library' }, order)).toBe(false);
  });
});

describe('attempt outcomes', () => {
  it('deliver on any 2xx', () => {
    for (const status of [200, 202, 204, 299])
      expect(attemptOutcome({ status }, 1, STANDARD_SCHEDULE, NOT_FAILING, 0)).toEqual({ state: 'Delivered' });
  });

  it('retry on the schedule, then fail after its last delay', () => {
    STANDARD_SCHEDULE.forEach((delay, index) =>
      expect(attemptOutcome({ status: 500 }, index + 1, STANDARD_SCHEDULE, NOT_FAILING, 0)).toEqual({
        state: 'Pending',
        retryAfterSeconds: delay,
      }),
    );
    expect(attemptOutcome({ error: 'time-out' }, 8, STANDARD_SCHEDULE, NOT_FAILING, 0)).toEqual({ state: 'Failed' });
    expect(attemptOutcome({ status: 302 }, 1, [1, 1, 1], NOT_FAILING, 0)).toEqual({
      state: 'Pending',
      retryAfterSeconds: 1,
    });
    expect(attemptOutcome({ status: 500 }, 4, [1, 1, 1], NOT_FAILING, 0)).toEqual({ state: 'Failed' });
  });

  it('disable at a 410, and after five days of failures without a success', () => {
    expect(attemptOutcome({ status: 410 }, 1, STANDARD_SCHEDULE, NOT_FAILING, 0)).toMatchObject({
      state: 'Failed',
      disableWebhook: expect.stringContaining('410'),
    });
    expect(
      attemptOutcome(
        { status: 503 },
        2,
        STANDARD_SCHEDULE,
        { since: 0, pauseAfterMs: FAILING_DISABLE_MS },
        FAILING_DISABLE_MS - 1,
      ),
    ).toMatchObject({
      state: 'Pending',
    });
    expect(
      attemptOutcome(
        { status: 503 },
        2,
        STANDARD_SCHEDULE,
        { since: 0, pauseAfterMs: FAILING_DISABLE_MS },
        FAILING_DISABLE_MS,
      ),
    ).toMatchObject({
      state: 'Failed',
      disableWebhook: expect.stringContaining('5 days'),
    });
  });

  it('pause a webhook failing for the pause window (a probe too), and disable it after five days still', () => {
    const failing = { since: 0, pauseAfterMs: PAUSE_AFTER_MS };
    expect(attemptOutcome({ status: 503 }, 1, STANDARD_SCHEDULE, failing, PAUSE_AFTER_MS - 1)).toMatchObject({
      state: 'Pending',
    });
    expect(attemptOutcome({ status: 503 }, 1, STANDARD_SCHEDULE, failing, PAUSE_AFTER_MS)).toEqual({ state: 'Paused' });
    expect(attemptOutcome({ status: 503 }, 1, [], failing, FAILING_DISABLE_MS - 1)).toEqual({ state: 'Paused' });
    expect(attemptOutcome({ status: 503 }, 1, [], failing, FAILING_DISABLE_MS)).toMatchObject({ state: 'Failed' });
    expect(attemptOutcome({ status: 200 }, 1, [], failing, PAUSE_AFTER_MS)).toEqual({ state: 'Delivered' });
  });
});

describe('deliveries', () => {
  it('have one id per event and webhook, ordered by the event time', () => {
    const id = deliveryIdFor('event-1', webhook.webhookId, 1_000);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(deliveryIdFor('event-1', webhook.webhookId, 1_000)).toBe(id);
    expect(deliveryIdFor('event-1', 'b'.repeat(32), 1_000)).not.toBe(id);
    expect(deliveryIdFor('event-2', webhook.webhookId, 2_000) > id).toBe(true);
  });

  it('carry the Standard Webhooks body: type, timestamp, data', () => {
    expect(JSON.parse(deliveryBody({ type: 'OrderCreated', time: 0, data: { OrderGuid: 'g' } }))).toEqual({
      type: 'OrderCreated',
      timestamp: '1970-01-01T00:00:00.000Z',
      data: { OrderGuid: 'g' },
    });
  });

  it('take each attempt from one chain of messages: a second chain dies at its first message', () => {
    const delivery = (state: Delivery['state'], attemptCount: number, attemptMessageId?: string): Delivery => ({
      deliveryId: 'd',
      webhookId: webhook.webhookId,
      eventType: 'OrderCreated',
      eventId: 'e',
      createdAt: 0,
      state,
      attempts: [],
      attemptCount,
      ...(attemptMessageId === undefined ? {} : { attemptMessageId }),
      body: '{}',
    });
    expect(messageAction(delivery('Pending', 0), {}, 'm1')).toBe('send');
    expect(messageAction(delivery('Pending', 1, 'm1'), { previous: 'm1' }, 'm2')).toBe('send');
    // A repeated fan-out's first message while retries are under way, or after the delivery settled.
    expect(messageAction(delivery('Pending', 1, 'm1'), {}, 'm9')).toBe('drop');
    expect(messageAction(delivery('Failed', 3, 'm3'), {}, 'm9')).toBe('drop');
    // The second chain's retry, after the first chain made the next attempt.
    expect(messageAction(delivery('Pending', 2, 'm2'), { previous: 'm1' }, 'm8')).toBe('drop');
    expect(messageAction(delivery('Delivered', 2, 'm2'), { previous: 'm1' }, 'm3')).toBe('drop');
    // The message that made the latest attempt, received again because what follows it may not have been done:
    // its retry, its resume of a pause (a success), or the pause and probe its failure called for.
    expect(messageAction(delivery('Pending', 2, 'm2'), { previous: 'm1' }, 'm2')).toBe('continue');
    expect(messageAction(delivery('Delivered', 3, 'm3'), { previous: 'm2' }, 'm3')).toBe('continue');
    expect(messageAction(delivery('Paused', 4, 'm4'), { redelivery: true }, 'm4')).toBe('continue');
    // A redelivery is sent whatever was attempted; once it settled, a repeat of it is dropped.
    expect(messageAction(delivery('Pending', 8, 'm8'), { redelivery: true }, 'm9')).toBe('send');
    expect(messageAction(delivery('Failed', 9, 'm9'), { redelivery: true }, 'm10')).toBe('drop');
    // A paused delivery: its probe, following the attempt before it, and its first message once the webhook resumed.
    expect(messageAction(delivery('Paused', 4, 'm4'), { probe: 1, previous: 'm4' }, 'm5')).toBe('send');
    expect(messageAction(delivery('Paused', 4, 'm4'), {}, 'm6')).toBe('send');
    // A second probe of one attempt (its probe scheduled twice) after the first made its attempt; and the probe
    // that made the latest attempt, received again: only its next probe is queued.
    expect(messageAction(delivery('Paused', 5, 'm5'), { probe: 1, previous: 'm4' }, 'm7')).toBe('drop');
    expect(messageAction(delivery('Paused', 5, 'm5'), { probe: 1, previous: 'm4' }, 'm5')).toBe('continue');
    // A redelivery that paused the webhook, received again after its probes began: they go on alone.
    expect(messageAction(delivery('Paused', 5, 'm5'), { redelivery: true }, 'm4')).toBe('drop');
  });
});

describe('webhook changes', () => {
  it('are found by the fan-out only while enabled', () => {
    expect(subscribedTypes(webhook)).toEqual(['OrderCreated']);
    expect(subscribedTypes(changed(webhook, { status: 'Disabled' }))).toEqual([]);
  });

  it('start afresh when enabled again, and count revisions', () => {
    const failing = {
      ...webhook,
      status: 'Disabled' as const,
      failingSince: 5,
      disabledReason: 'the receiver answered 410 Gone',
    };
    const enabled = changed(failing, { status: 'Enabled' });
    expect(enabled).not.toHaveProperty('failingSince');
    expect(enabled).not.toHaveProperty('disabledReason');
    expect(enabled.revision).toBe(2);
    expect(changed(failing, { url: 'https://x.example.com/' })).toMatchObject({ failingSince: 5, revision: 2 });
  });

  it('keep the previous secret for the rotation overlap', () => {
    const next = rotated(webhook, 'sealed-2', 1_000);
    expect(next).toMatchObject({
      sealedSecret: 'sealed-2',
      previousSecret: { sealedSecret: 'sealed-1', expiresAt: 1_000 + ROTATION_OVERLAP_MS },
      revision: 2,
    });
    expect(ROTATION_OVERLAP_MS).toBe(24 * 60 * 60 * 1000);
    expect(MAX_WEBHOOKS_PER_KEY).toBe(20);
  });
});
