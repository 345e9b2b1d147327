import { endpoint } from '../http/endpoint.ts';
import { deleteBasket } from '../services/basket-service.ts';
import { basketContracts } from '../contracts/basket.ts';

export const handler = endpoint(basketContracts.delete, async ({ principal, path }) => {
  await deleteBasket(principal.userId, path.basketGuid);
  return { BasketGuid: path.basketGuid, Deleted: true };
});
