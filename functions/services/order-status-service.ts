/**
 * An order's status changes: the lab's moves along the transition table and the customer's cancel while the
 * lab has not started (domain/order.ts). Each is one transaction: the order, its project copies, the
 * OrderStatusChanged outbox record, OrderCancelled with the refund due when it cancels, and the hold's end
 * when the change ends the order's artwork hold, on the condition that the order is still at the revision
 * the change was decided on; a lost race decides again on the order the failed condition returned, so a
 * cancel racing the lab's `Processing` has one winner. Requesting the status it has already writes nothing.
 */
import { applyStatus, customerCancel, type CancelledBy, type Order, type OrderStatus } from '../domain/order.ts';
import { holdEndFor } from '../domain/artwork-hold.ts';
import { config } from '../shared/config.ts';
import { formatDate } from '../shared/dates.ts';
import { notFound } from '../shared/errors.ts';
import type { DomainEvent } from '../shared/events.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { METRIC } from '../shared/metric-names.ts';
import { fromMinorUnits } from '../shared/money.ts';
import { retryOnConflict } from '../shared/retry.ts';
import { endHoldAction } from '../store/artwork-hold-store.ts';
import * as orders from '../store/order-store.ts';
import { recordEvent } from '../store/outbox-store.ts';
import { transact, TransactionConflictError } from '../store/transaction.ts';

const orderNotFound = (orderGuid: string) => notFound('OrderNotFound', `No order ${orderGuid}.`);

const statusChangedEvent = (order: Order): DomainEvent => ({
  type: 'OrderStatusChanged',
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

const orderCancelledEvent = (order: Order, by: CancelledBy): DomainEvent => ({
  type: 'OrderCancelled',
  id: `OrderCancelled-${order.orderGuid}`,
  time: order.lastSavedAt,
  detail: {
    OrderGuid: order.orderGuid,
    UserId: order.userId,
    CancelledBy: by,
    RefundDue: fromMinorUnits(order.totalMinor),
    Currency: config.currency,
    CancelledDateUtc: formatDate(order.lastSavedAt),
    PaymentReference: order.paymentReference,
  },
});

/** Another status change won: decide again on the order its failed condition returned. */
class StaleOrder extends Error {}

/** The end of the order's artwork hold, when this change ends it (Cancelled, Completed). */
const holdEndOf = (order: Order): number | undefined =>
  holdEndFor(order.status, order.lastSavedAt, config.artworkHoldDays);

/** The hold's end on the checkout record that holds the order's artwork, in the change's transaction. */
function holdEndActions(order: Order, heldUntil: number | undefined) {
  return order.artworkHold === undefined || heldUntil === undefined
    ? []
    : [endHoldAction(order.artworkHold, heldUntil)];
}

/** Moves the user's order as `decide` says, by `by` (the events name who cancelled). */
async function moveOrder(
  userId: string,
  orderGuid: string,
  decide: (order: Order, now: number) => Order | undefined,
  by: CancelledBy,
): Promise<Order> {
  let current = await orders.getOrder(userId, orderGuid);
  if (!current) throw orderNotFound(orderGuid);
  return retryOnConflict(
    async () => {
      const next = decide(current as Order, Date.now());
      if (!next) return current as Order;
      const heldUntil = holdEndOf(next);
      const outcome = await transact([
        ...orders.changeStatusActions(next, (current as Order).revision, heldUntil),
        recordEvent(statusChangedEvent(next)),
        ...(next.status === 'Cancelled' ? [recordEvent(orderCancelledEvent(next, by))] : []),
        ...holdEndActions(next, heldUntil),
      ]);
      if (!outcome.committed) {
        const found = outcome.failed.find((failed) => failed.index === 0)?.item;
        if (!found) throw new Error(`order ${orderGuid} failed its status change without a newer revision`);
        current = orders.orderOf(found);
        throw new StaleOrder();
      }
      emitMetrics({ [METRIC.OrderStatusChanges]: 1 });
      return next;
    },
    (error) => error instanceof StaleOrder || error instanceof TransactionConflictError,
  );
}

/** The lab's move of an order along the transition table (fulfilment key). */
export async function changeOrderStatus(orderGuid: string, to: OrderStatus): Promise<Order> {
  const userId = await orders.findOrderOwner(orderGuid);
  if (userId === undefined) throw orderNotFound(orderGuid);
  return moveOrder(userId, orderGuid, (order, now) => applyStatus(order, to, now), 'Fulfilment');
}

/**
 * The customer's cancel of their own order (another user's is 404): while it is `OrderReceived`; once the
 * lab has started, 409 OrderInProduction; a cancelled one answers as it is.
 */
export const cancelOrder = (userId: string, orderGuid: string): Promise<Order> =>
  moveOrder(userId, orderGuid, customerCancel, 'Customer');
