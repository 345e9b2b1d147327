import { idempotentEndpoint } from '../http/idempotency.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { METRIC } from '../shared/metric-names.ts';
import { createBasket } from '../services/basket-service.ts';
import { basketContracts, toBasketOut } from '../contracts/basket.ts';

export const handler = idempotentEndpoint(basketContracts.create, async ({ principal }) => {
  const basket = await createBasket(principal.userId);
  emitMetrics({ [METRIC.BasketsCreated]: 1 });
  return toBasketOut(basket);
});
