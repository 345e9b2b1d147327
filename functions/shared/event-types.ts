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
