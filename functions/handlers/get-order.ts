import { endpoint } from '../http/endpoint.ts';
import { readOrder } from '../services/order-service.ts';
import { orderContracts, toOrderDetailOut } from '../contracts/order.ts';

export const handler = endpoint(orderContracts.get, async ({ principal, path }) =>
  toOrderDetailOut(await readOrder(principal.userId, path.orderGuid)),
);
