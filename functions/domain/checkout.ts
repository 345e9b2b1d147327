/**
 * The checkout snapshot: what the checkout site must charge for, bound to the basket version it was taken
 * from. Pure: basket-service takes it, checkout-store persists it, order-service completes it.
 */
import { basketTotalMinor, type Basket, type BasketLine, type SaveTime } from './basket.ts';
import type { Project } from './project.ts';
import type { ArtworkRef } from './artwork.ts';

/**
 * A line as checked out: the basket line with its project's name at that moment, kept as its price is, so
 * the page that charges and the order show what was bought even after a rename. No name: the project had none
 * (or the snapshot predates names). Its artwork, when the project version names some, is kept by the name of
 * its immutable record (the item guids, up to 200 a line, would not fit a 94-line order in one item).
 */
export interface CheckoutLine extends BasketLine, Partial<ArtworkRef> {
  name?: string;
}

export interface Checkout {
  checkoutId: string;
  userId: string;
  basketGuid: string;
  /** The basket version the snapshot was taken from; completion is refused if the basket moved on. */
  basketVersion: number;
  lines: CheckoutLine[];
  totalMinor: number;
  createdAt: number;
  expiresAt: number;
  /** Set by the completion, in its transaction: the order this checkout became. */
  order?: CheckoutClaim;
  /**
   * Set while a checkout whose artwork holds need several transactions is being written: not payable, read
   * as missing (domain/artwork-hold.ts).
   */
  pending?: true;
  /** Set by an erasure that broke a pending checkout: it never becomes payable. */
  brokenBy?: string;
}

/** What a completion records on its checkout: it fixes the order's identity, payment and time. */
export interface CheckoutClaim {
  orderGuid: string;
  paymentReference: string;
  createdAt: number;
}

/** Where a checkout stands: `Open` can be completed; `BasketChanged` would be refused; `Completed` has its order. */
export type CheckoutState =
  { status: 'Open' } | { status: 'BasketChanged' } | { status: 'Completed'; orderGuid: string };

/**
 * A snapshot of `basket` as it will be saved at `basketVersion`, its lines named from `projects` (those the
 * checkout priced them with); it lives as long as an untouched basket.
 */
export const takeCheckout = (
  checkoutId: string,
  basket: Basket,
  basketVersion: number,
  projects: ReadonlyMap<string, Pick<Project, 'name' | 'itemGuids' | 'artworkDigest'>>,
  saved: SaveTime,
): Checkout => ({
  checkoutId,
  userId: basket.userId,
  basketGuid: basket.guid,
  basketVersion,
  lines: basket.lines.map((line) => {
    const { name, itemGuids, artworkDigest } = projects.get(line.projectGuid) ?? {};
    return {
      ...line,
      ...(name === undefined ? {} : { name }),
      ...(artworkDigest === undefined || itemGuids === undefined
        ? {}
        : { artworkDigest, artworkItemCount: itemGuids.length }),
    };
  }),
  totalMinor: basketTotalMinor(basket),
  createdAt: saved.now,
  expiresAt: saved.now + saved.ttlMs,
});

/** Whether the checkout holds library items: a line of it names its project version's artwork. */
export const holdsArtwork = (checkout: Pick<Checkout, 'lines'>): boolean =>
  checkout.lines.some((line) => line.artworkDigest !== undefined);

export const isCheckoutExpired = (checkout: Pick<Checkout, 'expiresAt'>, now: number): boolean =>
  checkout.expiresAt <= now;

/** A checkout readers see: unexpired, written whole, not broken; an expired, pending or broken one reads as missing. */
export const isCheckoutReadable = (checkout: Checkout, now: number): boolean =>
  !isCheckoutExpired(checkout, now) && !checkout.pending && checkout.brokenBy === undefined;

/**
 * The erased item an erasure closed this unexpired, unpaid checkout for (domain/artwork-hold.ts): its
 * completion is 409 ArtworkErased rather than a checkout gone missing.
 */
export const closedBy = (checkout: Checkout, now: number): string | undefined =>
  !isCheckoutExpired(checkout, now) && !checkout.pending && checkout.order === undefined
    ? checkout.brokenBy
    : undefined;

/** True while the basket is exactly what was checked out: the same version, not deleted. */
export const isBasketAsCheckedOut = (basket: Pick<Basket, 'version'> | undefined, checkout: Checkout): boolean =>
  basket !== undefined && basket.version === checkout.basketVersion;

/** The checkout's state from its claim and the basket as stored now. */
export function checkoutState(checkout: Checkout, basket: Pick<Basket, 'version'> | undefined): CheckoutState {
  if (checkout.order) return { status: 'Completed', orderGuid: checkout.order.orderGuid };
  return isBasketAsCheckedOut(basket, checkout) ? { status: 'Open' } : { status: 'BasketChanged' };
}
