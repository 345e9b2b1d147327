/**
 * Order rules, pure: no I/O, no clock, no AWS. An order is made from a checkout snapshot (what was paid
 * for) and then only its status moves, along the transition table below.
 */
import { conflict } from '../shared/errors.ts';
import { holdsArtwork, type Checkout, type CheckoutClaim, type CheckoutLine } from './checkout.ts';
import { timeOrderedGuid } from '../shared/ids.ts';
import type { ArtworkItem } from './artwork.ts';

export const ORDER_STATUSES = ['OrderReceived', 'Processing', 'Shipped', 'Completed', 'Cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Which status may follow which. `Completed` and `Cancelled` are final. */
export const STATUS_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  OrderReceived: ['Processing', 'Cancelled'],
  Processing: ['Shipped', 'Cancelled'],
  Shipped: ['Completed'],
  Completed: [],
  Cancelled: [],
};

/**
 * An order line keeps the unit price, project version and name it was paid at; later price changes and
 * renames do not reach it.
 */
export type OrderLine = CheckoutLine;

export interface Order {
  orderGuid: string;
  userId: string;
  basketGuid: string;
  paymentReference: string;
  lines: OrderLine[];
  totalMinor: number;
  status: OrderStatus;
  /** The status before the last change; absent while the order has never changed. */
  previousStatus?: OrderStatus;
  /** 1 at creation, +1 per status change: the version the conditional writes and the project copies compare. */
  revision: number;
  createdAt: number;
  lastSavedAt: number;
  /** When the order reached `Completed`; unset before (written as the .NET minimum date). */
  completedAt?: number;
  /** The checkout whose record holds the order's artwork (domain/artwork-hold.ts); absent when it names none. */
  artworkHold?: string;
}

/** The checkout snapshot fields an order is made from. */
export type PaidSnapshot = Pick<Checkout, 'userId' | 'basketGuid' | 'lines' | 'totalMinor'> &
  Partial<Pick<Checkout, 'checkoutId'>>;

/** Order guids are time-ordered, so a user's orders read newest first straight from the key. */
export const orderGuidAt = timeOrderedGuid;

export function orderFromCheckout(snapshot: PaidSnapshot, claim: CheckoutClaim): Order {
  return {
    orderGuid: claim.orderGuid,
    userId: snapshot.userId,
    basketGuid: snapshot.basketGuid,
    paymentReference: claim.paymentReference,
    lines: snapshot.lines,
    totalMinor: snapshot.totalMinor,
    status: 'OrderReceived',
    revision: 1,
    createdAt: claim.createdAt,
    lastSavedAt: claim.createdAt,
    ...(snapshot.checkoutId !== undefined && holdsArtwork(snapshot) ? { artworkHold: snapshot.checkoutId } : {}),
  };
}

/**
 * What the lab's read of an order's artwork needs of each line, kept on the order's owner pointer so that
 * the read is that GetItem and one BatchGetItem of the artwork records (services/artwork-service.ts).
 */
export type ArtworkLine = Pick<
  OrderLine,
  'id' | 'projectGuid' | 'projectVersion' | 'artworkDigest' | 'artworkItemCount'
>;

export const artworkLinesOf = (order: Pick<Order, 'lines'>): ArtworkLine[] =>
  order.lines.map(({ id, projectGuid, projectVersion, artworkDigest, artworkItemCount }) => ({
    id,
    projectGuid,
    projectVersion,
    ...(artworkDigest === undefined ? {} : { artworkDigest, artworkItemCount: artworkItemCount ?? 0 }),
  }));

/** An artwork item as the lab reads it: with a presigned GET of its original, and a link that lasts. */
export interface ReadableArtworkItem extends ArtworkItem {
  downloadUrl: string;
  downloadExpiresAt: number;
  /** The DownloadLink (domain/artwork-link.ts): absolute, on the API. */
  downloadLink: string;
}

/** One page of an order's artwork: whole lines (domain/artwork.ts artworkPage). */
export interface OrderArtworkPage {
  orderGuid: string;
  lines: (ArtworkLine & { items: ReadableArtworkItem[] })[];
  nextCursor?: string;
}

/** The projects an order contains, each once: one project copy of the order is kept per entry. */
export const orderProjects = (order: Pick<Order, 'lines'>): string[] => [
  ...new Set(order.lines.map((line) => line.projectGuid)),
];

/** Who cancels an order: its customer, while the lab has not started, or the lab (the fulfilment key). */
export const CANCELLED_BY = ['Customer', 'Fulfilment'] as const;
export type CancelledBy = (typeof CANCELLED_BY)[number];

/**
 * The customer's cancel: allowed while the order is `OrderReceived` (the lab has not started); a cancelled
 * order answers as it is (a repeated cancel). Answers the move to make, undefined when there is none.
 */
export function customerCancel(order: Order, now: number): Order | undefined {
  if (order.status === 'Cancelled') return undefined;
  if (order.status !== 'OrderReceived')
    throw conflict(
      'OrderInProduction',
      `Order ${order.orderGuid} is ${order.status}: the lab has started on it, so it can no longer be cancelled here.`,
      { Status: order.status },
    );
  return applyStatus(order, 'Cancelled', now);
}

/**
 * Moves the order to `to`. Answers undefined when it is in `to` already (a repeated request changes
 * nothing); an illegal move is 409 and names the moves that are allowed.
 */
export function applyStatus(order: Order, to: OrderStatus, now: number): Order | undefined {
  if (order.status === to) return undefined;
  const allowed = STATUS_TRANSITIONS[order.status];
  if (!allowed.includes(to)) {
    const options = allowed.length > 0 ? `allowed next: ${allowed.join(', ')}` : 'it is final';
    throw conflict(
      'IllegalStatusTransition',
      `Status: order ${order.orderGuid} is ${order.status}; it cannot become ${to} (${options}).`,
    );
  }
  return {
    ...order,
    status: to,
    previousStatus: order.status,
    revision: order.revision + 1,
    lastSavedAt: now,
    ...(to === 'Completed' ? { completedAt: now } : {}),
  };
}
