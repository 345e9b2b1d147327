/**
 * A webhook's delivery log for its API key: the deliveries, newest first, a page at a time, and a
 * redelivery of one of them: the same event again with the same webhook-id (receivers drop it if they had
 * it), signed anew when it is sent, through the deliveries queue like any delivery. A redelivery is one
 * attempt (Stripe's resend), and a delivery takes one while none of it is Pending, so redelivering in a
 * loop sends at most one request at a time per delivery.
 */
import type { Delivery } from '../domain/webhook-delivery.ts';
import { conflict, notFound } from '../shared/errors.ts';
import type { PageRequest } from '../store/query.ts';
import { getDelivery, listDeliveries, markRedelivery, unmarkRedelivery } from '../store/webhook-delivery-store.ts';
import { readWebhook, type Caller } from './webhook-service.ts';
import { sendDeliveryMessages } from './webhook-fanout-service.ts';

export async function deliveryLog(
  caller: Caller,
  webhookId: string,
  page: PageRequest,
): Promise<{ deliveries: Delivery[]; nextCursor?: string }> {
  await readWebhook(caller, webhookId);
  return listDeliveries(webhookId, page);
}

const deliveryPending = (deliveryId: string) =>
  conflict(
    'DeliveryPending',
    `Delivery ${deliveryId} is Pending: an attempt of it is queued or its retries are under way; redeliver it once it is Delivered or Failed.`,
  );

export async function redeliver(caller: Caller, webhookId: string, deliveryId: string): Promise<Delivery> {
  const webhook = await readWebhook(caller, webhookId);
  if (webhook.status === 'Disabled')
    throw conflict('WebhookDisabled', `Webhook ${webhookId} is disabled; enable it (PUT Status "Enabled") first.`);
  const delivery = await getDelivery(webhookId, deliveryId);
  if (!delivery) throw notFound('DeliveryNotFound', `No delivery ${deliveryId} of webhook ${webhookId}.`);
  if (delivery.state === 'Pending' || !(await markRedelivery(delivery))) throw deliveryPending(deliveryId);
  try {
    await sendDeliveryMessages([{ webhookId, ownerKeyId: webhook.ownerKeyId, deliveryId, redelivery: true }]);
  } catch (error) {
    await unmarkRedelivery(delivery);
    throw error;
  }
  return { ...delivery, state: 'Pending' };
}
