import { idempotentEndpoint } from '../http/idempotency.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { METRIC } from '../shared/metric-names.ts';
import { checkOutBasket, checkoutUrl } from '../services/basket-service.ts';
import { basketContracts } from '../contracts/basket.ts';

export const handler = idempotentEndpoint(basketContracts.checkout, async ({ principal, path }) => {
  const checkout = await checkOutBasket(principal.userId, path.basketGuid);
  emitMetrics({ [METRIC.Checkouts]: 1 });
  return { BasketGuid: checkout.basketGuid, CheckoutUrl: checkoutUrl(checkout.checkoutId) };
});
