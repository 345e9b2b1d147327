import { endpoint } from '../shared/http.ts';
import { listOrders } from '../services/order-service.ts';
import { orderContracts, toOrderOut } from '../contracts/order.ts';

export const handler = endpoint(orderContracts.list, async ({ principal, query }) => ({
  Orders: (await listOrders(principal.userId, query.projectguid)).map(toOrderOut),
}));
