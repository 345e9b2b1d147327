import { idempotentEndpoint } from '../http/idempotency.ts';
import { metrics } from '../shared/powertools.ts';
import { METRIC } from '../shared/metric-names.ts';
import { addBasketLine } from '../services/basket-service.ts';
import { basketContracts, toBasketLineOut, toBasketOut } from '../contracts/basket.ts';

export const handler = idempotentEndpoint(basketContracts.addLine, async ({ principal, path, body }) => {
  const { basket, line } = await addBasketLine(principal.userId, path.basketGuid, {
    projectGuid: body.ProjectGuid,
    quantity: body.Quantity,
  });
  metrics.addMetric(METRIC.BasketLinesAdded, 'Count', 1);
  return { Line: toBasketLineOut(line), Basket: toBasketOut(basket) };
});
