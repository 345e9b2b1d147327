import { endpoint } from '../shared/http.ts';
import { listBaskets } from '../services/basket-service.ts';
import { basketContracts, toBasketOut } from '../contracts/basket.ts';

export const handler = endpoint(basketContracts.list, async ({ principal }) => ({
  Baskets: (await listBaskets(principal.userId)).map(toBasketOut),
}));
