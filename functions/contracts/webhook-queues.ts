/**
 * What travels on the webhook queues: the fan-out queue carries the EventBridge envelope of a subscribable
 * event (an EventBridge rule sends it there), the deliveries queue one message per delivery. The CDK stack
 * and the local stack's stand-ins (lib/local/webhook-queues.ts) read the queues' settings here.
 */
import * as z from 'zod/mini';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/event-subscriptions.ts';

export const WebhookEventEnvelope = z.object({
  'detail-type': z.enum(WEBHOOK_EVENT_TYPES),
  time: z.string(),
  detail: z.looseObject({ EventId: z.string().check(z.minLength(1)), CorrelationId: z.optional(z.string()) }),
});

export const DeliveryMessage = z.object({
  webhookId: z.string().check(z.regex(/^[0-9a-f]{32}$/)),
  ownerKeyId: z.string().check(z.minLength(1)),
  deliveryId: z.string().check(z.regex(/^[0-9a-f]{32}$/)),
  /** A manual redelivery: one attempt, no retry schedule after it. */
  redelivery: z.optional(z.literal(true)),
  /** Which attempt of the delivery the message makes (1 when absent). */
  attempt: z.optional(z.int().check(z.minimum(1))),
  /** When the attempt is due (epoch ms): a message arriving earlier is sent on (webhooks/delivery-queue.ts). */
  dueAt: z.optional(z.int().check(z.minimum(0))),
  /** The queue message whose attempt this one follows (domain/webhook-delivery.ts messageAction). */
  previous: z.optional(z.string()),
  /** The API request id of the work that sent it (shared/correlation.ts), kept by its retries. */
  correlationId: z.optional(z.string()),
  /** A probe of a paused webhook: the pausedAt of the pause it probes (a probe of an ended pause is dropped). */
  probe: z.optional(z.int().check(z.minimum(0))),
});
export type DeliveryMessage = z.infer<typeof DeliveryMessage>;

/**
 * Queue the next page of a resumed webhook's waiting deliveries; sent on until the list is empty and
 * `requeueUntil` (epoch ms) has passed, which covers the fan-out's subscriber cache: an event it fanned out
 * to the webhook as still paused waits on the list meanwhile.
 */
export const RequeueMessage = z.object({
  webhookId: z.string().check(z.regex(/^[0-9a-f]{32}$/)),
  ownerKeyId: z.string().check(z.minLength(1)),
  requeueUntil: z.int().check(z.minimum(0)),
  dueAt: z.optional(z.int().check(z.minimum(0))),
});
export type RequeueMessage = z.infer<typeof RequeueMessage>;

/** What the deliveries queue carries. */
export const DeliveriesQueueMessage = z.union([RequeueMessage, DeliveryMessage]);
export type DeliveriesQueueMessage = z.infer<typeof DeliveriesQueueMessage>;

/**
 * The queues and their consumers. A deliveries message is one attempt (its retry is a new message), received
 * again only when its function broke: after maxReceiveCount such receives (an hour at the 180 s visibility
 * timeout) it goes to the dead-letter queue; a delivery whose receiver keeps failing ends Failed.
 */
export const WEBHOOK_QUEUES = {
  fanout: { name: 'webhook-fanout', handler: 'webhook-fanout', maxReceiveCount: 5 },
  deliveries: { name: 'webhook-deliveries', handler: 'webhook-deliver', maxReceiveCount: 20 },
} as const;
