/** The domain events this service publishes (EventBridge `detail-type`). A leaf module: the local stack imports it before any client exists. */
export const DOMAIN_EVENT_TYPES = [
  'BasketCheckedOut',
  'OrderCreated',
  'OrderStatusChanged',
  'OrderCancelled',
  'LibraryItemsAdded',
  'LibraryItemRenditionsDecided',
] as const;
export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];

/**
 * The detail field that names the aggregate each event is about: the publisher keeps one aggregate's events
 * in order (an order's OrderCreated before its OrderStatusChanged), whatever it does with the others.
 */
export const AGGREGATE_FIELD: Record<DomainEventType, string> = {
  BasketCheckedOut: 'BasketGuid',
  OrderCreated: 'OrderGuid',
  OrderStatusChanged: 'OrderGuid',
  OrderCancelled: 'OrderGuid',
  LibraryItemsAdded: 'AnonymousUserId',
  LibraryItemRenditionsDecided: 'ItemGuid',
};
