/**
 * A webhook's delivery log for its API key: the deliveries, newest first, a page at a time, and a
 * redelivery of one of them: the same event again with the same webhook-id (receivers drop it if they had
 * it), signed anew when it is sent, through the deliveries queue like any delivery.
 */
import type { Delivery } from '../domain/webhook-delivery.ts';
import { conflict, notFound } from '../shared/errors.ts';
import type { PageRequest } from '../store/query.ts';
import { getDelivery, listDeliveries, settleDelivery } from '../store/webhook-delivery-store.ts';
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

export async function redeliver(caller: Caller, webhookId: string, deliveryId: string): Promise<Delivery> {
  const webhook = await readWebhook(caller, webhookId);
  if (webhook.status === 'Disabled')
    throw conflict('WebhookDisabled', `Webhook ${webhookId} is disabled; enable it (PUT Status "Enabled") first.`);
  const delivery = await getDelivery(webhookId, deliveryId);
  if (!delivery) throw notFound('DeliveryNotFound', `No delivery ${deliveryId} of webhook ${webhookId}.`);
  await settleDelivery(delivery, 'Pending');
  await sendDeliveryMessages([{ webhookId, ownerKeyId: webhook.ownerKeyId, deliveryId }]);
  return { ...delivery, state: 'Pending' };
}
