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
  /** Failed for the image's sake: it cannot give renditions (unreadable, a decompression bomb, too large). */
  RenditionsFailed: 'RenditionsFailed',
  /** Failed for the service's sake: storage or time-outs on every attempt (alarmed at any occurrence). */
  RenditionsFailedByService: 'RenditionsFailedByService',
  EventsPublished: 'EventsPublished',
  /** Bearer tokens the authorizer could not check: the issuer's keys (JWKS) could not be fetched. */
  IdentityKeysUnreachable: 'IdentityKeysUnreachable',
  /** Webhook attempts the receiver answered 2xx. */
  WebhookAttemptsDelivered: 'WebhookAttemptsDelivered',
  /** Webhook attempts that failed (another status, a time-out, no connection). */
  WebhookAttemptsFailed: 'WebhookAttemptsFailed',
  /** Failed attempts whose webhook had no failure streak: each failing partner once, as it starts failing. */
  WebhooksStartedFailing: 'WebhooksStartedFailing',
  /** Deliveries that ended Failed (the schedule ran out, the webhook was disabled). */
  WebhookDeliveriesFailed: 'WebhookDeliveriesFailed',
  /** Webhooks disabled by the delivery function (a 410, or five days of failures). */
  WebhooksDisabled: 'WebhooksDisabled',
  /** Webhooks paused (failing for WEBHOOK_PAUSE_AFTER_MINUTES): their deliveries wait, probes go out. */
  WebhooksPaused: 'WebhooksPaused',
  /** Paused webhooks whose probe or redelivery succeeded: their waiting deliveries are queued again. */
  WebhooksResumed: 'WebhooksResumed',
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
export const RENDITION_COUNTS = [
  METRIC.RenditionsReady,
  METRIC.RenditionsFailed,
  METRIC.RenditionsFailedByService,
] as const;
/** What the event publisher put on the bus. */
export const PUBLISHER_COUNTS = [METRIC.EventsPublished] as const;
/** What the webhook delivery function's attempts came to. */
export const WEBHOOK_COUNTS = [
  METRIC.WebhookAttemptsDelivered,
  METRIC.WebhookAttemptsFailed,
  METRIC.WebhooksStartedFailing,
  METRIC.WebhookDeliveriesFailed,
  METRIC.WebhooksDisabled,
  METRIC.WebhooksPaused,
  METRIC.WebhooksResumed,
] as const;
