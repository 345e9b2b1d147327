import { endpoint } from '../http/endpoint.ts';
import { readBasket } from '../services/basket-service.ts';
import { basketContracts, toBasketOut } from '../contracts/basket.ts';

export const handler = endpoint(basketContracts.get, async ({ principal, path }) =>
  toBasketOut(await readBasket(principal.userId, path.basketGuid)),
);
