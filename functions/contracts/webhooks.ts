/**
 * Webhook schemas: a partner registers a URL for event types and receives them signed (Standard Webhooks).
 * Any API key manages its own webhooks; which types it may subscribe to is the event-subscription table
 * (functions/webhooks/event-subscriptions.ts), checked by the service so that the answer names the type.
 */
import * as z from 'zod/mini';
import { formatDate } from '../shared/dates.ts';
import { WEBHOOK_STATUSES, type Webhook } from '../domain/webhook.ts';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/event-subscriptions.ts';
import { Guid, GuidOut, listOf, nameSchemas, requestSchemas, responseSchemas, WireDateOut } from './common.ts';

/** The longest webhook URL: a receiver's address, not a place for payloads. */
export const MAX_WEBHOOK_URL_LENGTH = 1024;

export const WebhookPath = z.object({ webhookId: Guid });

const WebhookUrl = z.string().check(
  z.minLength(1, 'must not be empty'),
  z.maxLength(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`),
  z.meta({
    description: 'An https URL whose host resolves to public addresses only; no user info',
    example: 'https://partner.example.com/hooks/photo-commerce',
  }),
);

const EventTypesIn = listOf(
  z.string().check(z.maxLength(64, 'must be at most 64 characters')),
  WEBHOOK_EVENT_TYPES.length,
  'event type',
  `Event types to receive (${WEBHOOK_EVENT_TYPES.join(', ')}); which ones a key may subscribe to depends on its scope`,
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
  Status: StatusField,
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
  Status: webhook.status,
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
