import { endpoint } from '../http/endpoint.ts';
import { completeCheckout } from '../services/order-service.ts';
import { orderContracts, toOrderDetailOut } from '../contracts/order.ts';

export const handler = endpoint(orderContracts.completeCheckout, async ({ path, body }) => ({
  Order: toOrderDetailOut(await completeCheckout(path.checkoutId, body.PaymentReference)),
}));
