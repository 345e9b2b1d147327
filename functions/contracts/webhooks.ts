/**
 * Webhook schemas: a partner registers a URL for event types and receives them signed (Standard Webhooks).
 * Any API key manages its own webhooks; which types it may subscribe to is the event-subscription table
 * (functions/webhooks/event-subscriptions.ts), checked by the service so that the answer names the type.
 */
import * as z from 'zod/mini';
import { formatDate } from '../shared/dates.ts';
import { stateOf, WEBHOOK_STATES, WEBHOOK_STATUSES, type Webhook } from '../domain/webhook.ts';
import { EVENT_SUBSCRIPTIONS, WEBHOOK_EVENT_TYPES } from '../webhooks/event-subscriptions.ts';
import { attemptCountOf, DELIVERY_STATES, KEPT_ATTEMPTS, type Delivery } from '../domain/webhook-delivery.ts';
import {
  Guid,
  GuidOut,
  IntegerOut,
  listOf,
  nameSchemas,
  NextCursorOut,
  PageQuery,
  requestSchemas,
  responseSchemas,
  WireDateOut,
} from './common.ts';

/** The longest webhook URL: a receiver's address, not a place for payloads. */
export const MAX_WEBHOOK_URL_LENGTH = 1024;

export const WebhookPath = z.object({ webhookId: Guid });

/** Deliveries per page of the log: by default, and at most. */
export const DELIVERY_PAGE_DEFAULT = 50;
const DELIVERY_PAGE_MAX = 100;

const WebhookUrl = z.string().check(
  z.minLength(1, 'must not be empty'),
  z.maxLength(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`),
  z.meta({
    description: 'An https URL on port 443 whose host resolves to public addresses only; no user info',
    example: 'https://partner.example.com/hooks/photo-commerce',
  }),
);

const EventTypesIn = listOf(
  z.string().check(z.maxLength(64, 'must be at most 64 characters')),
  WEBHOOK_EVENT_TYPES.length,
  'event type',
  `Event types to receive, each open to API keys of the scopes named (the event-subscription table): ${WEBHOOK_EVENT_TYPES.map(
    (type) =>
      `${type} (${EVENT_SUBSCRIPTIONS[type].scopes.join(', ')}${EVENT_SUBSCRIPTIONS[type].audience === 'owner' ? '; only the key that caused it' : ''})`,
  ).join(', ')}`,
);

const StatusField = z.enum(WEBHOOK_STATUSES);

export const WebhookInput = z.object({ Url: WebhookUrl, EventTypes: EventTypesIn });

export const WebhookUpdateInput = z.object({
  Url: z.optional(WebhookUrl),
  EventTypes: z.optional(EventTypesIn),
  Status: z.optional(StatusField),
});

export const WebhookOut = z.object({
  WebhookId: GuidOut,
  Url: z.string(),
  EventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  Status: z.enum(WEBHOOK_STATES).check(
    z.meta({
      description:
        'Enabled or Disabled as its key (or the service: a 410, five days of failures, a revoked key) set it; Paused while its deliveries wait after failing for the pause window: a probe is sent every few minutes, and the first success, or PUT Status Enabled, queues them again',
    }),
  ),
  PausedDateUtc: z.optional(WireDateOut),
  CreatedDateUtc: WireDateOut,
});

const SecretOut = z.string().check(
  z.regex(/^whsec_[A-Za-z0-9+/]+=*$/),
  z.meta({
    description: 'The signing secret (Standard Webhooks): answered on creation and rotation only, never again',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  }),
);

export const CreatedWebhookOut = z.object({ ...WebhookOut.shape, Secret: SecretOut });
export const WebhookListOut = z.object({ Webhooks: z.array(WebhookOut) });
export const WebhookSecretOut = z.object({ Secret: SecretOut });
export const DeletedWebhookOut = z.object({ WebhookId: GuidOut, Deleted: z.literal(true) });

const refused = { 404: ['WebhookNotFound'], 422: ['WebhookUrlRefused'] } as const;

// A contract table reads best one row per operation.
// prettier-ignore
export const webhookContracts = {
  create: { principal: 'apiKey', body: WebhookInput, response: CreatedWebhookOut, errors: { 400: ['UnknownEventType'], 409: ['WebhookQuotaExceeded'], 422: refused[422] } },
  list: { principal: 'apiKey', response: WebhookListOut },
  get: { principal: 'apiKey', path: WebhookPath, response: WebhookOut, errors: { 404: refused[404] } },
  update: { principal: 'apiKey', path: WebhookPath, body: WebhookUpdateInput, response: WebhookOut, errors: { 400: ['UnknownEventType'], ...refused } },
  delete: { principal: 'apiKey', path: WebhookPath, response: DeletedWebhookOut, errors: { 404: refused[404] } },
  rotateSecret: { principal: 'apiKey', path: WebhookPath, response: WebhookSecretOut, errors: { 404: refused[404] } },
} as const;

export const toWebhookOut = (webhook: Webhook): z.infer<typeof WebhookOut> => ({
  WebhookId: webhook.webhookId,
  Url: webhook.url,
  EventTypes: webhook.eventTypes,
  Status: stateOf(webhook),
  ...(webhook.pausedAt !== undefined && webhook.status === 'Enabled'
    ? { PausedDateUtc: formatDate(webhook.pausedAt) }
    : {}),
  CreatedDateUtc: formatDate(webhook.createdAt),
});

nameSchemas(requestSchemas, { WebhookInput, WebhookUpdateInput });
nameSchemas(responseSchemas, {
  Webhook: WebhookOut,
  CreatedWebhook: CreatedWebhookOut,
  WebhookList: WebhookListOut,
  WebhookSecret: WebhookSecretOut,
  DeletedWebhook: DeletedWebhookOut,
});

// The delivery log.

export const DeliveryPath = z.object({
  webhookId: Guid,
  deliveryId: z.string().check(
    z.regex(/^[0-9a-f]{32}$/, 'must be a DeliveryId (32 hexadecimal characters)'),
    z.meta({
      description: 'A DeliveryId of the log: the webhook-id its attempts sent',
      example: '019ac6f2a1b37c4d8e9f0a1b2c3d4e5f',
    }),
  ),
});
export const DeliveryListQuery = z.object(PageQuery(DELIVERY_PAGE_DEFAULT, DELIVERY_PAGE_MAX));

export const DeliveryAttemptOut = z.object({
  DateUtc: WireDateOut,
  Status: IntegerOut({
    minimum: 0,
    maximum: 599,
    example: 200,
    description: "The receiver's HTTP status; 0 when there was none (refused URL, connection error, time-out)",
  }),
  DurationMs: IntegerOut({ minimum: 0, example: 84 }),
});

export const DeliveryOut = z.object({
  DeliveryId: GuidOut.check(z.meta({ description: 'The webhook-id header every attempt of this delivery sent' })),
  EventType: z.enum(WEBHOOK_EVENT_TYPES),
  CreatedDateUtc: WireDateOut,
  State: z.enum(DELIVERY_STATES),
  Attempts: z
    .array(DeliveryAttemptOut)
    .check(z.meta({ description: `The latest ${KEPT_ATTEMPTS} attempts, oldest first` })),
  AttemptCount: IntegerOut({ minimum: 0, example: 1, description: 'Attempts made in all, redeliveries included' }),
  NotSentReason: z.optional(
    z.string().check(
      z.meta({
        description:
          'Why its last message was sent to no one (its webhook disabled or paused, its API key revoked); absent once an attempt is made',
        example: 'not sent: its API key was revoked',
      }),
    ),
  ),
});
export const DeliveryListOut = z.object({ Deliveries: z.array(DeliveryOut), NextCursor: NextCursorOut });
export const RedeliveryOut = z.object({ DeliveryId: GuidOut, State: z.literal('Pending') });

// prettier-ignore
export const deliveryContracts = {
  list: { principal: 'apiKey', path: WebhookPath, query: DeliveryListQuery, response: DeliveryListOut, errors: { 404: ['WebhookNotFound'] } },
  redeliver: { principal: 'apiKey', path: DeliveryPath, response: RedeliveryOut, errors: { 404: ['WebhookNotFound', 'DeliveryNotFound'], 409: ['WebhookDisabled', 'DeliveryPending', 'RedeliveredRecently'] } },
} as const;

export const toDeliveryOut = (delivery: Delivery): z.infer<typeof DeliveryOut> => ({
  DeliveryId: delivery.deliveryId,
  EventType: delivery.eventType,
  CreatedDateUtc: formatDate(delivery.createdAt),
  State: delivery.state,
  Attempts: delivery.attempts.map((attempt) => ({
    DateUtc: formatDate(attempt.at),
    Status: attempt.status,
    DurationMs: attempt.durationMs,
  })),
  AttemptCount: attemptCountOf(delivery),
  ...(delivery.notSentReason !== undefined ? { NotSentReason: delivery.notSentReason } : {}),
});

nameSchemas(responseSchemas, {
  WebhookDeliveryAttempt: DeliveryAttemptOut,
  WebhookDelivery: DeliveryOut,
  WebhookDeliveryList: DeliveryListOut,
  Redelivery: RedeliveryOut,
});
