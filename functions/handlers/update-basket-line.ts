import { endpoint } from '../http/endpoint.ts';
import { changeBasketLine } from '../services/basket-service.ts';
import { basketContracts, toBasketLineOut, toBasketOut } from '../contracts/basket.ts';

export const handler = endpoint(basketContracts.updateLine, async ({ principal, path, body }) => {
  const { basket, line } = await changeBasketLine(principal.userId, path.basketGuid, path.lineId, {
    projectGuid: body.ProjectGuid,
    quantity: body.Quantity,
  });
  return { Line: toBasketLineOut(line), Basket: toBasketOut(basket) };
});
