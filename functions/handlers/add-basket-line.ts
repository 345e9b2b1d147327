import { idempotentEndpoint } from '../http/idempotency.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { METRIC } from '../shared/metric-names.ts';
import { addBasketLine } from '../services/basket-service.ts';
import { basketContracts, toBasketLineOut, toBasketOut } from '../contracts/basket.ts';

export const handler = idempotentEndpoint(basketContracts.addLine, async ({ principal, path, body }) => {
  const { basket, line } = await addBasketLine(principal.userId, path.basketGuid, {
    projectGuid: body.ProjectGuid,
    quantity: body.Quantity,
  });
  emitMetrics({ [METRIC.BasketLinesAdded]: 1 });
  return { Line: toBasketLineOut(line), Basket: toBasketOut(basket) };
});
