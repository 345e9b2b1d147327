import { endpoint } from '../http/endpoint.ts';
import { deleteBasketLine } from '../services/basket-service.ts';
import { basketContracts, toBasketOut } from '../contracts/basket.ts';

export const handler = endpoint(basketContracts.deleteLine, async ({ principal, path }) => ({
  Basket: toBasketOut(await deleteBasketLine(principal.userId, path.basketGuid, path.lineId)),
}));
