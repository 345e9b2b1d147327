import { idempotentEndpoint } from '../http/idempotency.ts';
import { metrics } from '../shared/powertools.ts';
import { METRIC } from '../shared/metric-names.ts';
import { checkOutBasket, checkoutUrl } from '../services/basket-service.ts';
import { basketContracts } from '../contracts/basket.ts';

export const handler = idempotentEndpoint(basketContracts.checkout, async ({ principal, path }) => {
  const checkout = await checkOutBasket(principal.userId, path.basketGuid);
  metrics.addMetric(METRIC.Checkouts, 'Count', 1);
  return { BasketGuid: checkout.basketGuid, CheckoutUrl: checkoutUrl(checkout.checkoutId) };
});
