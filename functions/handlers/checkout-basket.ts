import { endpoint } from '../shared/http.ts';
import { metrics } from '../shared/powertools.ts';
import { checkOutBasket, checkoutUrl } from '../services/basket-service.ts';
import { basketContracts } from '../contracts/basket.ts';

export const handler = endpoint(basketContracts.checkout, async ({ principal, path }) => {
  const checkout = await checkOutBasket(principal.userId, path.basketGuid);
  metrics.addMetric('Checkouts', 'Count', 1);
  return { BasketGuid: checkout.basketGuid, CheckoutUrl: checkoutUrl(checkout.checkoutId) };
});
