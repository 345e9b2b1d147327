import { idempotentEndpoint } from '../http/idempotency.ts';
import { cancelOrder } from '../services/order-status-service.ts';
import { orderContracts, toOrderDetailOut } from '../contracts/order.ts';

export const handler = idempotentEndpoint(orderContracts.cancel, async ({ principal, path }) => ({
  Order: toOrderDetailOut(await cancelOrder(principal.userId, path.orderGuid)),
}));
