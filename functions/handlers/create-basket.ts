import { idempotentEndpoint } from '../http/idempotency.ts';
import { metrics } from '../shared/powertools.ts';
import { METRIC } from '../shared/metric-names.ts';
import { createBasket } from '../services/basket-service.ts';
import { basketContracts, toBasketOut } from '../contracts/basket.ts';

export const handler = idempotentEndpoint(basketContracts.create, async ({ principal }) => {
  const basket = await createBasket(principal.userId);
  metrics.addMetric(METRIC.BasketsCreated, 'Count', 1);
  return toBasketOut(basket);
});
