/**
 * The metrics the service emits (`emitMetrics`, functions/shared/metrics.ts), one list for the code that
 * emits them and for the dashboard that shows them (lib/constructs/monitoring/), with the service name and
 * namespace they are published under in AWS.
 */
export const SERVICE_NAME = 'photo-commerce';
export const METRICS_NAMESPACE = 'PhotoCommerce';

export const METRIC = {
  BasketsCreated: 'BasketsCreated',
  BasketLinesAdded: 'BasketLinesAdded',
  Checkouts: 'Checkouts',
  OrdersCreated: 'OrdersCreated',
  /** A completed checkout completed again with another PaymentReference: a second charge to refund. */
  CheckoutPaidTwice: 'CheckoutPaidTwice',
  OrderStatusChanges: 'OrderStatusChanges',
  ImagesStored: 'ImagesStored',
  ImageBytesStored: 'ImageBytesStored',
  LibraryLeftoversSwept: 'LibraryLeftoversSwept',
  LibraryItemsSwept: 'LibraryItemsSwept',
  RenditionsReady: 'RenditionsReady',
  RenditionsFailed: 'RenditionsFailed',
  EventsPublished: 'EventsPublished',
} as const;

export type MetricName = keyof typeof METRIC;

/** Every metric is a count but the bytes stored. */
export const unitOf = (name: MetricName): 'Count' | 'Bytes' => (name === METRIC.ImageBytesStored ? 'Bytes' : 'Count');

/** Counts of business events, in the order the dashboard shows them. */
export const BUSINESS_COUNTS = [
  METRIC.BasketsCreated,
  METRIC.BasketLinesAdded,
  METRIC.Checkouts,
  METRIC.OrdersCreated,
  METRIC.CheckoutPaidTwice,
  METRIC.OrderStatusChanges,
  METRIC.ImagesStored,
] as const;
export const BUSINESS_BYTES = [METRIC.ImageBytesStored] as const;
/** What the library sweeper removed. */
export const SWEEPER_COUNTS = [METRIC.LibraryLeftoversSwept, METRIC.LibraryItemsSwept] as const;
/** What the renditions function decided. */
export const RENDITION_COUNTS = [METRIC.RenditionsReady, METRIC.RenditionsFailed] as const;
/** What the event publisher put on the bus. */
export const PUBLISHER_COUNTS = [METRIC.EventsPublished] as const;
