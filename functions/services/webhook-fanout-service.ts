/**
 * The fan-out of one subscribable event: its subscribers are the enabled webhooks in the index partition of
 * its type (one Query per page, never a Scan), kept only when the event-subscription table lets their key
 * receive it (its scope; for `owner` events, only the key that caused it). Each gets a Pending delivery, whose
 * body carries the event in the partner form of its webhook's scope (webhooks/partner-forms.ts: the scope
 * the key had when it registered, which the subscription index keeps), and one message on the deliveries
 * queue; a paused webhook's delivery waits instead (State Paused, on its waiting list), with no message. A
 * repeated fan-out of the same event finds the deliveries it made (their ids derive from the event and the
 * webhook) and sends their messages again: at least once, and the receiver drops the repeat by its webhook-id.
 */
import type { DeliveryMessage } from '../contracts/webhook-queues.ts';
import { sendDeliveryMessages } from '../webhooks/delivery-queue.ts';
import { deliveryBody, deliveryIdFor, WAITING_REASON, type Delivery } from '../domain/webhook-delivery.ts';
import { createDelivery } from '../store/webhook-delivery-store.ts';
import { addWaiting } from '../store/webhook-waiting-store.ts';
import { cachedSubscribers } from '../webhooks/subscriber-cache.ts';
import type { ApiKeyScope } from '../auth/principal.ts';
import { receives, type WebhookEventType } from '../webhooks/event-subscriptions.ts';
import { partnerData } from '../webhooks/partner-forms.ts';

export interface SubscribableEvent {
  type: WebhookEventType;
  id: string;
  time: number;
  detail: Record<string, unknown>;
}

/** Makes the event's deliveries and queues them; answers how many. */
export async function fanOut(event: SubscribableEvent): Promise<number> {
  const subscribers = (await cachedSubscribers(event.type)).filter((subscriber) => receives(subscriber, event));
  const bodies = new Map<ApiKeyScope, string>();
  const bodyFor = (scope: ApiKeyScope): string => {
    const body = bodies.get(scope) ?? deliveryBody({ ...event, data: partnerData(event.type, scope, event.detail) });
    bodies.set(scope, body);
    return body;
  };
  const messages: DeliveryMessage[] = [];
  for (const subscriber of subscribers) {
    const delivery: Delivery = {
      deliveryId: deliveryIdFor(event.id, subscriber.webhookId, event.time),
      webhookId: subscriber.webhookId,
      eventType: event.type,
      eventId: event.id,
      createdAt: event.time,
      state: subscriber.pausedAt === undefined ? 'Pending' : 'Paused',
      attempts: [],
      ...(subscriber.pausedAt === undefined ? {} : { notSentReason: WAITING_REASON }),
      body: bodyFor(subscriber.ownerScope),
    };
    await createDelivery(delivery);
    if (subscriber.pausedAt !== undefined) {
      await addWaiting(delivery);
      continue;
    }
    messages.push({
      webhookId: subscriber.webhookId,
      ownerKeyId: subscriber.ownerKeyId,
      deliveryId: delivery.deliveryId,
    });
  }
  await sendDeliveryMessages(messages);
  return subscribers.length;
}
