import { endpoint } from '../http/endpoint.ts';
import { listOrders } from '../services/order-service.ts';
import { orderContracts, toOrderOut } from '../contracts/order.ts';
import { DEFAULT_PAGE_LIMIT } from '../contracts/common.ts';

export const handler = endpoint(orderContracts.list, async ({ principal, query }) => {
  const { orders, nextCursor } = await listOrders(
    principal.userId,
    { limit: query.limit ?? DEFAULT_PAGE_LIMIT, cursor: query.cursor },
    query.projectguid,
  );
  return { Orders: orders.map(toOrderOut), ...(nextCursor === undefined ? {} : { NextCursor: nextCursor }) };
});
