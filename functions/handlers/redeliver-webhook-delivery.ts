import { endpoint } from '../http/endpoint.ts';
import { redeliver } from '../services/webhook-delivery-log-service.ts';
import { deliveryContracts } from '../contracts/webhooks.ts';

export const handler = endpoint(deliveryContracts.redeliver, async ({ principal, path }) => {
  const delivery = await redeliver(principal.apiKey, path.webhookId, path.deliveryId);
  return { DeliveryId: delivery.deliveryId, State: 'Pending' as const };
});
