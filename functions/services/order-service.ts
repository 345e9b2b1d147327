/**
 * Order use cases: reading a checkout, completing it into an order, reading orders, changing status.
 *
 * Checkout completion without transactions, as an ordered list of steps that are each safe to repeat:
 *   1. claim   the basket for this checkout (conditional put keyed by basket: fixes OrderGuid and time,
 *              and makes any second checkout of the same basket lose)      - the commit point
 *   2. owner   pointer OrderGuid -> user (conditional put)
 *   3. order   item (conditional put; an existing one is read back instead)
 *   4. copies  one per project, brought up to the order's revision
 *   5. basket  deleted, only at the version the checkout was taken from
 *   6. event   OrderCreated published, then the order marked so a repeat does not publish it again
 * A crash anywhere leaves a prefix of these; the next call for the checkout (any repeat of the request)
 * redoes the remaining steps and answers the same order. A repeat with another PaymentReference finishes
 * them too, then is refused (domain/repeated-completion.ts): 409 CheckoutAlreadyCompleted.
 */
import { randomBytes } from 'node:crypto';
import { lineTotalMinor } from '../domain/basket.ts';
import { checkoutState, isBasketAsCheckedOut, type Checkout, type CheckoutState } from '../domain/checkout.ts';
import { repeatedCompletion, type RepeatedCompletion } from '../domain/repeated-completion.ts';
import {
  applyStatus,
  orderFromCheckout,
  orderGuidAt,
  type Order,
  type OrderClaim,
  type OrderStatus,
} from '../domain/order.ts';
import { conflict, notFound } from '../shared/errors.ts';
import { publishEvent } from '../shared/events.ts';
import { logger, metrics } from '../shared/powertools.ts';
import { METRIC } from '../shared/metric-names.ts';
import { retryOnConflict } from '../shared/retry.ts';
import { fromMinorUnits } from '../shared/money.ts';
import * as baskets from '../store/basket-store.ts';
import { getCheckout } from '../store/checkout-store.ts';
import * as orders from '../store/order-store.ts';
import type { PageRequest } from '../store/query.ts';

const checkoutNotFound = (checkoutId: string) =>
  notFound('CheckoutNotFound', `No checkout ${checkoutId} (unknown or expired).`);
const orderNotFound = (orderGuid: string) => notFound('OrderNotFound', `No order ${orderGuid}.`);
const basketChanged = () =>
  conflict(
    'BasketChanged',
    'The basket was changed, deleted or ordered after this checkout was issued; start a new checkout so that what is paid is what is ordered.',
  );

async function readCheckout(checkoutId: string): Promise<Checkout> {
  const checkout = await getCheckout(checkoutId, Date.now());
  if (!checkout) throw checkoutNotFound(checkoutId);
  return checkout;
}

export async function readCheckoutState(checkoutId: string): Promise<{ checkout: Checkout; state: CheckoutState }> {
  const checkout = await readCheckout(checkoutId);
  const [claim, basket] = await Promise.all([
    orders.getClaim(checkout.userId, checkout.basketGuid),
    baskets.getBasket(checkout.userId, checkout.basketGuid, Date.now()),
  ]);
  return { checkout, state: checkoutState(checkout, claim, basket) };
}

/** The claim must be this checkout's: another checkout of the same basket having won is a changed basket. */
function ownClaim(claim: OrderClaim, checkout: Checkout): OrderClaim {
  if (claim.checkoutId !== checkout.checkoutId) throw basketChanged();
  return claim;
}

/**
 * Step 1: find this checkout's claim, or make it if the basket is still exactly what was checked out.
 * `fresh` says this call made it (nothing after it can exist yet).
 */
async function claimBasket(
  checkout: Checkout,
  paymentReference: string,
): Promise<{ claim: OrderClaim; fresh: boolean }> {
  const { userId, basketGuid } = checkout;
  const existing = await orders.getClaim(userId, basketGuid);
  if (existing) return { claim: ownClaim(existing, checkout), fresh: false };
  const now = Date.now();
  if (!isBasketAsCheckedOut(await baskets.getBasket(userId, basketGuid, now), checkout)) {
    // A concurrent completion of this same checkout may have claimed and deleted the basket meanwhile.
    const late = await orders.getClaim(userId, basketGuid);
    if (late) return { claim: ownClaim(late, checkout), fresh: false };
    throw basketChanged();
  }
  const claim: OrderClaim = {
    orderGuid: orderGuidAt(now, randomBytes(10)),
    checkoutId: checkout.checkoutId,
    paymentReference,
    createdAt: now,
  };
  if (await orders.insertClaim(userId, basketGuid, claim)) return { claim, fresh: true };
  const winner = await orders.getClaim(userId, basketGuid);
  if (!winner) throw new Error(`claim of basket ${basketGuid} failed its condition but cannot be read`);
  return { claim: ownClaim(winner, checkout), fresh: false };
}

const orderCreatedEvent = (order: Order) => ({
  type: 'OrderCreated' as const,
  id: `OrderCreated-${order.orderGuid}`,
  time: order.createdAt,
  detail: {
    OrderGuid: order.orderGuid,
    UserId: order.userId,
    BasketGuid: order.basketGuid,
    PaymentReference: order.paymentReference,
    Status: 'OrderReceived',
    OrderTotal: fromMinorUnits(order.totalMinor),
    Lines: order.lines.map((line) => ({
      Id: line.id,
      ProjectGuid: line.projectGuid,
      ProjectVersion: line.projectVersion,
      Quantity: line.quantity,
      Total: fromMinorUnits(lineTotalMinor(line)),
    })),
  },
});

const statusChangedEvent = (order: Order) => ({
  type: 'OrderStatusChanged' as const,
  id: `OrderStatusChanged-${order.orderGuid}-${order.revision}`,
  time: order.lastSavedAt,
  detail: {
    OrderGuid: order.orderGuid,
    UserId: order.userId,
    From: order.previousStatus,
    To: order.status,
    Revision: order.revision,
  },
});

export async function completeCheckout(checkoutId: string, paymentReference: string): Promise<Order> {
  const checkout = await readCheckout(checkoutId);
  const { claim, fresh } = await claimBasket(checkout, paymentReference);
  if (fresh) return finishOrder(checkout, claim);
  const repeat = repeatedCompletion(claim, paymentReference);
  const stored = await orders.getOrder(checkout.userId, claim.orderGuid);
  // The marker is the last step: a repeat that sees it has nothing left to do. Otherwise the first
  // payment's order is finished now, also before a refusal, so that the OrderGuid it names exists.
  const order = stored?.createdEventPublished ? stored : await finishOrder(checkout, claim);
  if (repeat.kind === 'OtherPayment') refusePaidTwice(checkoutId, repeat, paymentReference);
  return order;
}

/**
 * A second payment for a paid checkout: a metric and an error log line to alarm on (someone must refund
 * it), and 409 CheckoutAlreadyCompleted naming the order the first payment made.
 */
function refusePaidTwice(
  checkoutId: string,
  repeat: Extract<RepeatedCompletion, { kind: 'OtherPayment' }>,
  paymentReference: string,
): never {
  metrics.addMetric(METRIC.CheckoutPaidTwice, 'Count', 1);
  logger.error('checkout paid twice', {
    checkoutId,
    orderGuid: repeat.orderGuid,
    firstPaymentReference: repeat.firstPaymentReference,
    paymentReference,
  });
  throw conflict(
    'CheckoutAlreadyCompleted',
    `Checkout ${checkoutId} was completed already, with another PaymentReference, as order ${repeat.orderGuid}; this payment made no order.`,
    { OrderGuid: repeat.orderGuid },
  );
}

/** Steps 2 to 6 for a claim: each is safe to repeat, so a repeat finishes what a crash left. */
async function finishOrder(checkout: Checkout, claim: OrderClaim): Promise<Order> {
  const order = orderFromCheckout(checkout, claim);
  await orders.insertOrderOwner(order);
  const created = await orders.insertOrder(order);
  const current = created ? order : ((await orders.getOrder(order.userId, order.orderGuid)) ?? order);
  await orders.syncProjectCopies(current);
  await baskets.deleteBasket(checkout.userId, checkout.basketGuid, checkout.basketVersion);
  await publishEvent(orderCreatedEvent(current));
  await orders.markCreatedEventPublished(current);
  if (created) metrics.addMetric(METRIC.OrdersCreated, 'Count', 1);
  return { ...current, createdEventPublished: true };
}

export async function readOrder(userId: string, orderGuid: string): Promise<Order> {
  const order = await orders.getOrder(userId, orderGuid);
  if (!order) throw orderNotFound(orderGuid);
  return order;
}

export const listOrders = (userId: string, page: PageRequest, projectGuid?: string): Promise<orders.OrderPage> =>
  projectGuid === undefined ? orders.listOrders(userId, page) : orders.listOrdersWithProject(userId, projectGuid, page);

/** Publishes the status event of the order's current revision unless that was done (the outbox marker). */
async function publishPendingStatusEvent(order: Order): Promise<Order> {
  if (order.revision <= 1 || order.publishedRevision >= order.revision) return order;
  await publishEvent(statusChangedEvent(order));
  await orders.markStatusEventPublished(order, order.revision);
  return { ...order, publishedRevision: order.revision };
}

/**
 * Moves an order along the transition table (domain/order.ts). Requesting the status it has already is a
 * successful no-op that also finishes what an interrupted earlier request left undone (copies, event).
 */
export async function changeOrderStatus(orderGuid: string, to: OrderStatus): Promise<Order> {
  const userId = await orders.findOrderOwner(orderGuid);
  if (userId === undefined) throw orderNotFound(orderGuid);
  const { order, changed } = await retryOnConflict(
    async () => {
      // An event a crashed request left unpublished goes out before the next change, keeping events in order.
      const current = await publishPendingStatusEvent(await readOrder(userId, orderGuid));
      const next = applyStatus(current, to, Date.now());
      if (!next) return { order: current, changed: false };
      await orders.saveOrderStatus(next, current.revision);
      return { order: next, changed: true };
    },
    (error) => error instanceof orders.StaleOrderError,
  );
  await orders.syncProjectCopies(order);
  const published = await publishPendingStatusEvent(order);
  if (changed) metrics.addMetric(METRIC.OrderStatusChanges, 'Count', 1);
  return published;
}
