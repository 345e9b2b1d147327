/**
 * Order use cases: reading a checkout, completing it into an order, reading orders (status changes:
 * order-status-service.ts).
 *
 * Completion is one transaction whose conditions decide it:
 *   - the checkout's claim   (SET order, if the checkout has none): a second completion of it loses
 *   - the basket's removal   (only at the version the checkout was taken from): a changed, deleted or
 *                            already ordered basket refuses it (BasketChanged)
 *   - the order, its owner pointer and one copy per project (if none under the new guid)
 *   - the basket's release from the user's quota record
 *   - the OrderCreated outbox record (published from the table's stream)
 * A repeat finds the claim on the checkout and answers that order, writing nothing.
 */
import { randomBytes } from 'node:crypto';
import { lineTotalMinor } from '../domain/basket.ts';
import {
  checkoutState,
  closedBy,
  isCheckoutReadable,
  type Checkout,
  type CheckoutClaim,
  type CheckoutState,
} from '../domain/checkout.ts';
import { repeatedCompletion, type RepeatedCompletion } from '../domain/repeated-completion.ts';
import { orderFromCheckout, orderGuidAt, type Order } from '../domain/order.ts';
import { conflict, notFound } from '../shared/errors.ts';
import type { DomainEvent } from '../shared/events.ts';
import { logger } from '../shared/powertools.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { METRIC } from '../shared/metric-names.ts';
import { retryOnConflict } from '../shared/retry.ts';
import { fromMinorUnits } from '../shared/money.ts';
import * as baskets from '../store/basket-store.ts';
import { transactReleasing } from '../store/basket-quota-store.ts';
import { checkoutOf, claimCheckoutAction, getCheckout, getCheckoutRecord } from '../store/checkout-store.ts';
import * as orders from '../store/order-store.ts';
import { recordEvent } from '../store/outbox-store.ts';
import type { PageRequest } from '../store/query.ts';
import { TransactionConflictError } from '../store/transaction.ts';
import { artworkErased } from '../domain/artwork-hold.ts';

const checkoutNotFound = (checkoutId: string) =>
  notFound('CheckoutNotFound', `No checkout ${checkoutId} (unknown or expired).`);
const orderNotFound = (orderGuid: string) => notFound('OrderNotFound', `No order ${orderGuid}.`);
const basketChanged = () =>
  conflict(
    'BasketChanged',
    'The basket was changed, deleted or ordered after this checkout was issued; start a new checkout so that what is paid is what is ordered.',
  );
const isConflict = (error: unknown) => error instanceof TransactionConflictError;

async function readCheckout(checkoutId: string): Promise<Checkout> {
  const checkout = await getCheckout(checkoutId, Date.now());
  if (!checkout) throw checkoutNotFound(checkoutId);
  return checkout;
}

export async function readCheckoutState(checkoutId: string): Promise<{ checkout: Checkout; state: CheckoutState }> {
  const checkout = await readCheckout(checkoutId);
  const basket = checkout.order ? undefined : await baskets.getBasket(checkout.userId, checkout.basketGuid, Date.now());
  return { checkout, state: checkoutState(checkout, basket) };
}

const orderCreatedEvent = (order: Order): DomainEvent => ({
  type: 'OrderCreated',
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
      Name: line.name ?? null,
      ProjectVersion: line.projectVersion,
      Quantity: line.quantity,
      Total: fromMinorUnits(lineTotalMinor(line)),
      ArtworkItemCount: line.artworkItemCount ?? 0,
    })),
    // The lab reads the artwork when it prints (presigned URLs would expire in the event): where, not how.
    ArtworkPath: `/order/${order.orderGuid}/artwork`,
  },
});

/**
 * The answer to a completion of a checkout that was completed already (domain/repeated-completion.ts): the
 * order it became for the same payment reference, 409 CheckoutAlreadyCompleted for another one.
 */
async function completedOrder(checkout: Checkout, claim: CheckoutClaim, paymentReference: string): Promise<Order> {
  const repeat = repeatedCompletion(claim, paymentReference);
  if (repeat.kind === 'OtherPayment') refusePaidTwice(checkout.checkoutId, repeat, paymentReference);
  const order = await orders.getOrder(checkout.userId, claim.orderGuid);
  if (!order) throw new Error(`checkout ${checkout.checkoutId} claims order ${claim.orderGuid}, which is missing`);
  return order;
}

/**
 * A second payment for a paid checkout: a metric and an error log line to alarm on (someone must refund
 * it), and 409 CheckoutAlreadyCompleted naming the order the first payment made (committed with its claim).
 */
function refusePaidTwice(
  checkoutId: string,
  repeat: Extract<RepeatedCompletion, { kind: 'OtherPayment' }>,
  paymentReference: string,
): never {
  emitMetrics({ [METRIC.CheckoutPaidTwice]: 1 });
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

/** The completion transaction's first actions, by index: what a failed condition says. */
const CLAIM = 0;

/** The checkout to complete: 409 ArtworkErased when an erasure closed it (domain/checkout.ts closedBy). */
async function checkoutToComplete(checkoutId: string): Promise<Checkout> {
  const now = Date.now();
  const record = await getCheckoutRecord(checkoutId);
  const erased = record && closedBy(record, now);
  if (erased !== undefined) throw artworkErased([erased]);
  if (!record || !isCheckoutReadable(record, now)) throw checkoutNotFound(checkoutId);
  return record;
}

export async function completeCheckout(checkoutId: string, paymentReference: string): Promise<Order> {
  const checkout = await checkoutToComplete(checkoutId);
  return retryOnConflict(async () => {
    if (checkout.order) return completedOrder(checkout, checkout.order, paymentReference);
    const now = Date.now();
    const order = orderFromCheckout(checkout, {
      orderGuid: orderGuidAt(now, randomBytes(10)),
      paymentReference,
      createdAt: now,
    });
    const { userId, basketGuid, basketVersion } = checkout;
    const outcome = await transactReleasing(
      [
        claimCheckoutAction(checkout, { orderGuid: order.orderGuid, paymentReference, createdAt: now }),
        baskets.removeBasketAction(userId, basketGuid, basketVersion),
        ...orders.createOrderActions(order),
        recordEvent(orderCreatedEvent(order)),
      ],
      userId,
      basketGuid,
    );
    if (outcome.committed) {
      emitMetrics({ [METRIC.OrdersCreated]: 1 });
      return order;
    }
    const claim = outcome.failed.find((failed) => failed.index === CLAIM);
    // The claim held: the basket decided (changed, deleted or ordered through another checkout).
    if (!claim) throw basketChanged();
    // Completed meanwhile (a concurrent repeat): answer its order.
    const claimed = claim.item ? checkoutOf(claim.item) : undefined;
    // An erasure closed it first (services/artwork-hold-service.ts): the same record decided both.
    const erased = claimed && closedBy(claimed, now);
    if (erased !== undefined) throw artworkErased([erased]);
    if (!claimed?.order) throw checkoutNotFound(checkoutId);
    return completedOrder(claimed, claimed.order, paymentReference);
  }, isConflict);
}

export async function readOrder(userId: string, orderGuid: string): Promise<Order> {
  const order = await orders.getOrder(userId, orderGuid);
  if (!order) throw orderNotFound(orderGuid);
  return order;
}

export const listOrders = (userId: string, page: PageRequest, projectGuid?: string): Promise<orders.OrderPage> =>
  projectGuid === undefined ? orders.listOrders(userId, page) : orders.listOrdersWithProject(userId, projectGuid, page);
