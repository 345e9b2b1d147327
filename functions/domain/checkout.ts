/**
 * The checkout snapshot: what the checkout site must charge for, bound to the basket version it was taken
 * from. Pure: basket-service takes it, checkout-store persists it, order-service completes it.
 */
import { basketTotalMinor, type Basket, type BasketLine, type SaveTime } from './basket.ts';

export interface Checkout {
  checkoutId: string;
  userId: string;
  basketGuid: string;
  /** The basket version the snapshot was taken from; completion is refused if the basket moved on. */
  basketVersion: number;
  lines: BasketLine[];
  totalMinor: number;
  createdAt: number;
  expiresAt: number;
}

/** Where a checkout stands: `Open` can be completed; `BasketChanged` would be refused; `Completed` has its order. */
export type CheckoutState =
  { status: 'Open' } | { status: 'BasketChanged' } | { status: 'Completed'; orderGuid: string };

/** A snapshot of `basket` as it will be saved at `basketVersion`; it lives as long as an untouched basket. */
export const takeCheckout = (checkoutId: string, basket: Basket, basketVersion: number, saved: SaveTime): Checkout => ({
  checkoutId,
  userId: basket.userId,
  basketGuid: basket.guid,
  basketVersion,
  lines: basket.lines,
  totalMinor: basketTotalMinor(basket),
  createdAt: saved.now,
  expiresAt: saved.now + saved.ttlMs,
});

export const isCheckoutExpired = (checkout: Pick<Checkout, 'expiresAt'>, now: number): boolean =>
  checkout.expiresAt <= now;

/** True while the basket is exactly what was checked out: the same version, not deleted. */
export const isBasketAsCheckedOut = (basket: Pick<Basket, 'version'> | undefined, checkout: Checkout): boolean =>
  basket !== undefined && basket.version === checkout.basketVersion;

/** The checkout's state from the basket's claim (which checkout's order took the basket, if any) and the basket as stored now. */
export function checkoutState(
  checkout: Checkout,
  claim: { checkoutId: string; orderGuid: string } | undefined,
  basket: Pick<Basket, 'version'> | undefined,
): CheckoutState {
  if (claim)
    return claim.checkoutId === checkout.checkoutId
      ? { status: 'Completed', orderGuid: claim.orderGuid }
      : { status: 'BasketChanged' };
  return isBasketAsCheckedOut(basket, checkout) ? { status: 'Open' } : { status: 'BasketChanged' };
}
