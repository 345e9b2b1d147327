import { endpoint } from '../http/endpoint.ts';
import { deliveryLog } from '../services/webhook-delivery-log-service.ts';
import { DELIVERY_PAGE_DEFAULT, deliveryContracts, toDeliveryOut } from '../contracts/webhooks.ts';

export const handler = endpoint(deliveryContracts.list, async ({ principal, path, query }) => {
  const page = await deliveryLog(principal.apiKey, path.webhookId, {
    limit: query.limit ?? DELIVERY_PAGE_DEFAULT,
    cursor: query.cursor,
  });
  return { Deliveries: page.deliveries.map(toDeliveryOut), NextCursor: page.nextCursor };
});
