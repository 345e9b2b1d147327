import { endpoint } from '../http/endpoint.ts';
import { config } from '../shared/config.ts';
import { readCheckoutState } from '../services/order-service.ts';
import { orderContracts, toCheckoutOut } from '../contracts/order.ts';

export const handler = endpoint(orderContracts.getCheckout, async ({ path }) => {
  const { checkout, state } = await readCheckoutState(path.checkoutId);
  return toCheckoutOut(checkout, state, config.currency);
});
