/**
 * A webhook's delivery log for its API key: the deliveries, newest first, a page at a time, and a
 * redelivery of one of them: the same event again with the same webhook-id (receivers drop it if they had
 * it), signed anew when it is sent, through the deliveries queue like any delivery. A redelivery is one
 * attempt (Stripe's resend), and a delivery takes one while none of it is Pending and none was taken in the
 * last minute, so redelivering in a loop sends at most one request a minute per delivery.
 */
import { REDELIVERY_INTERVAL_MS, type Delivery } from '../domain/webhook-delivery.ts';
import { conflict, notFound } from '../shared/errors.ts';
import type { PageRequest } from '../store/query.ts';
import { getDelivery, listDeliveries, markRedelivery, unmarkRedelivery } from '../store/webhook-delivery-store.ts';
import { readWebhook, type Caller } from './webhook-service.ts';
import { sendDeliveryMessages } from '../webhooks/delivery-queue.ts';

export async function deliveryLog(
  caller: Caller,
  webhookId: string,
  page: PageRequest,
): Promise<{ deliveries: Delivery[]; nextCursor?: string }> {
  await readWebhook(caller, webhookId);
  return listDeliveries(webhookId, page);
}

/** Why a redelivery of `delivery` is not taken at `now`. */
function redeliveryRefusal(delivery: Delivery, now: number) {
  // A Paused delivery goes out when its webhook resumes (its probe may be this very delivery).
  if (delivery.state === 'Pending' || delivery.state === 'Paused')
    return conflict(
      'DeliveryPending',
      `Delivery ${delivery.deliveryId} is ${delivery.state}: an attempt of it is queued, its retries are under way or it waits for its webhook to resume; redeliver it once it is Delivered or Failed.`,
    );
  const next = (delivery.redeliveredAt ?? now) + REDELIVERY_INTERVAL_MS;
  return conflict(
    'RedeliveredRecently',
    `Delivery ${delivery.deliveryId} was redelivered at ${new Date(delivery.redeliveredAt ?? now).toISOString()}; a delivery takes one redelivery a minute: redeliver it from ${new Date(next).toISOString()}.`,
  );
}

export async function redeliver(caller: Caller, webhookId: string, deliveryId: string): Promise<Delivery> {
  const webhook = await readWebhook(caller, webhookId);
  if (webhook.status === 'Disabled')
    throw conflict('WebhookDisabled', `Webhook ${webhookId} is disabled; enable it (PUT Status "Enabled") first.`);
  const delivery = await getDelivery(webhookId, deliveryId);
  if (!delivery) throw notFound('DeliveryNotFound', `No delivery ${deliveryId} of webhook ${webhookId}.`);
  const now = Date.now();
  if (!(await markRedelivery(delivery, now))) {
    // The condition names the reason on the record as it is now, which may differ from the one read above.
    throw redeliveryRefusal((await getDelivery(webhookId, deliveryId)) ?? delivery, now);
  }
  try {
    await sendDeliveryMessages([{ webhookId, ownerKeyId: webhook.ownerKeyId, deliveryId, redelivery: true }]);
  } catch (error) {
    await unmarkRedelivery(delivery, now);
    throw error;
  }
  return { ...delivery, state: 'Pending', redeliveredAt: now };
}
