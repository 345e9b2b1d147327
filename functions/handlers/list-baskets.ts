import { endpoint } from '../http/endpoint.ts';
import { listBaskets } from '../services/basket-service.ts';
import { basketContracts, toBasketOut } from '../contracts/basket.ts';
import { DEFAULT_PAGE_LIMIT } from '../contracts/common.ts';

export const handler = endpoint(basketContracts.list, async ({ principal, query }) => {
  const { baskets, nextCursor } = await listBaskets(principal.userId, {
    limit: query.limit ?? DEFAULT_PAGE_LIMIT,
    cursor: query.cursor,
  });
  return { Baskets: baskets.map(toBasketOut), ...(nextCursor === undefined ? {} : { NextCursor: nextCursor }) };
});
