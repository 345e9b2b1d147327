import { endpoint } from '../http/endpoint.ts';
import { changeOrderStatus } from '../services/order-status-service.ts';
import { orderContracts, toOrderDetailOut } from '../contracts/order.ts';

export const handler = endpoint(orderContracts.updateStatus, async ({ path, body }) => ({
  Order: toOrderDetailOut(await changeOrderStatus(path.orderGuid, body.Status)),
}));
