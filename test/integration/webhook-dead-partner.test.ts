/**
 * One dead partner stops nobody, against the local stack with its queues capped at 3 messages in flight
 * (LOCAL_SQS_MAX_IN_FLIGHT, as SQS caps a standard queue at about 120,000): a receiver that answers 503 to
 * everything and a healthy one both subscribe to a stream of events. A retry is sent anew, delayed, not held
 * in flight, so the dead receiver's retries never fill the cap, and the healthy one hears every event long
 * before the first retry is due.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitStatusEvent, startWebhookStack, until, type WebhookStack } from '../support/webhooks.ts';

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack({ WEBHOOK_RETRY_SCHEDULE: '60,60', LOCAL_SQS_MAX_IN_FLIGHT: '3' });
}, 60_000);
afterAll(() => stack?.close());

describe('a dead partner beside a healthy one', { timeout: 90_000 }, () => {
  it('leaves the healthy one every event, while its own retries wait delayed', async () => {
    stack.receiver.script(
      '/dead',
      Array.from({ length: 100 }, () => 503),
    );
    await stack.register(stack.fulfilmentKey, '/dead', ['OrderStatusChanged']);
    await stack.register(stack.fulfilmentKey, '/healthy', ['OrderStatusChanged']);
    const events = 12;
    for (let index = 0; index < events; index++) await commitStatusEvent(randomUUID().replaceAll('-', ''));

    // Well within the schedule's first 60 s delay: no retry has come back yet.
    await until('every event at the healthy receiver', () => stack.receiver.to('/healthy').length >= events, 40_000);
    await until('every first attempt at the dead receiver', () => stack.receiver.to('/dead').length >= events, 40_000);
    expect(stack.receiver.to('/healthy')).toHaveLength(events);
    expect(stack.receiver.to('/dead')).toHaveLength(events);
  });
});
