/**
 * Webhooks as this service keeps them: a partner's URL, the event types it hears about, whether it is on,
 * and its signing secret (sealed: functions/webhooks/webhook-secrets.ts). Pure rules: which types a key may
 * subscribe to (functions/webhooks/event-subscriptions.ts), the cap per key, a change, a rotation.
 */
import type { ApiKeyScope } from '../auth/principal.ts';
import { badRequest, conflict, forbidden, notFound } from '../shared/errors.ts';
import {
  isWebhookEventType,
  subscribableBy,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from '../webhooks/event-subscriptions.ts';

/** Webhooks one API key may have: its webhooks are listed in one Query of its partition, and each event fans out to every subscriber. */
export const MAX_WEBHOOKS_PER_KEY = 20;

/** How long a rotated-out secret still signs deliveries (Standard Webhooks: receivers roll over meanwhile). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const WEBHOOK_STATUSES = ['Enabled', 'Disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
/** What a webhook answers: its key's status, or Paused while the service holds an enabled one's deliveries. */
export const WEBHOOK_STATES = [...WEBHOOK_STATUSES, 'Paused'] as const;
export type WebhookState = (typeof WEBHOOK_STATES)[number];

export interface Webhook {
  webhookId: string;
  /** The API key that registered it: the only key that sees or manages it. */
  ownerKeyId: string;
  /** That key's scope when it registered: what its deliveries may carry. */
  ownerScope: ApiKeyScope;
  url: string;
  eventTypes: WebhookEventType[];
  status: WebhookStatus;
  createdAt: number;
  /** Counts changes: every write is conditional on the revision it read. */
  revision: number;
  /** The signing secret, KMS-sealed (base64 ciphertext). */
  sealedSecret: string;
  /** The secret before the last rotation, which also signs deliveries until `expiresAt`. */
  previousSecret?: { sealedSecret: string; expiresAt: number };
  /** When its deliveries began failing without a success since; absent while they succeed. */
  failingSince?: number;
  /** Why the service disabled it (a 410, five days of failures); absent when its key did, or it is enabled. */
  disabledReason?: string;
  /**
   * When the service paused it (its deliveries failed for WEBHOOK_PAUSE_AFTER_MINUTES without a success):
   * its deliveries wait, and one probe at a time is sent, until one succeeds (domain/webhook-delivery.ts).
   */
  pausedAt?: number;
  /** The delivery the pause's probes send: the one whose failure paused it. Set and removed with pausedAt. */
  probeDeliveryId?: string;
}

/** What a webhook's subscription index items say: what the fan-out needs without reading the webhook. */
export interface WebhookSubscriber {
  webhookId: string;
  ownerKeyId: string;
  ownerScope: ApiKeyScope;
  /** Its webhook's pausedAt: the fan-out makes its deliveries waiting, and queues none. */
  pausedAt?: number;
}

export const stateOf = (webhook: Webhook): WebhookState =>
  webhook.status === 'Enabled' && webhook.pausedAt !== undefined ? 'Paused' : webhook.status;

/** The event types a webhook is found under by the fan-out: none while it is disabled. */
export const subscribedTypes = (webhook: Webhook): WebhookEventType[] =>
  webhook.status === 'Enabled' ? webhook.eventTypes : [];

/**
 * The requested types, each once: an unknown one is 400, one the key's scope may not read through the API is
 * 403; each answer names the type and what the key may subscribe to instead.
 */
export function checkEventTypes(requested: readonly string[], scope: ApiKeyScope): WebhookEventType[] {
  const open = subscribableBy(scope);
  for (const type of requested) {
    if (!isWebhookEventType(type))
      throw badRequest(
        'UnknownEventType',
        `EventTypes: ${JSON.stringify(type)} is not an event type; the types are ${WEBHOOK_EVENT_TYPES.join(', ')}.`,
      );
    if (!open.includes(type))
      throw forbidden(
        `EventTypes: ${type} is not open to API keys of scope ${scope}, which may subscribe to ${open.join(', ')}.`,
      );
  }
  return [...new Set(requested as WebhookEventType[])];
}

export interface WebhookChanges {
  url?: string;
  eventTypes?: WebhookEventType[];
  status?: WebhookStatus;
}

/**
 * The webhook with its key's changes; enabling it (again) starts afresh: no failure streak, no reason it
 * was disabled, no pause (the caller queues the deliveries that waited: resumed()).
 */
export function changed(webhook: Webhook, changes: WebhookChanges): Webhook {
  const {
    failingSince: _failingSince,
    disabledReason: _disabledReason,
    pausedAt: _pausedAt,
    probeDeliveryId: _probeDeliveryId,
    ...rest
  } = webhook;
  return {
    ...(changes.status === 'Enabled' ? rest : webhook),
    ...(changes.url !== undefined ? { url: changes.url } : {}),
    ...(changes.eventTypes !== undefined ? { eventTypes: changes.eventTypes } : {}),
    ...(changes.status !== undefined ? { status: changes.status } : {}),
    revision: webhook.revision + 1,
  };
}

/** Whether `after` ends the pause of `before`: the deliveries that waited are to be queued. */
export const resumed = (before: Webhook, after: Webhook): boolean =>
  before.pausedAt !== undefined && after.pausedAt === undefined && after.status === 'Enabled';

/** Why a revoked key's webhooks are disabled, and its queued deliveries not sent. */
export const KEY_REVOKED = 'its API key was revoked';

/** The webhook disabled by the service, saying why. */
export const disabled = (webhook: Webhook, reason: string): Webhook => ({
  ...webhook,
  status: 'Disabled',
  disabledReason: reason,
  revision: webhook.revision + 1,
});

/** The webhook with a new secret; the current one keeps signing for ROTATION_OVERLAP_MS (a rotation before that ends drops the older one). */
export const rotated = (webhook: Webhook, sealedSecret: string, now: number): Webhook => ({
  ...webhook,
  sealedSecret,
  previousSecret: { sealedSecret: webhook.sealedSecret, expiresAt: now + ROTATION_OVERLAP_MS },
  revision: webhook.revision + 1,
});

export const webhookNotFound = (webhookId: string) =>
  notFound('WebhookNotFound', `No webhook ${webhookId} of this API key.`);

export const webhookQuotaExceeded = () =>
  conflict(
    'WebhookQuotaExceeded',
    `This API key has ${MAX_WEBHOOKS_PER_KEY} webhooks, the most one key may have; delete one first.`,
  );
