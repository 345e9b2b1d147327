/**
 * The fan-out's subscribers of each event type, kept WEBHOOK_SUBSCRIBERS_CACHE_SECONDS (10 in AWS, the stack
 * setting `webhookSubscribersCacheSeconds`) instead of a Query per event. What that costs in freshness: a new
 * webhook, or one whose pause began or ended, is seen that much later; a deleted, disabled or revoked one is
 * never sent to (the delivery function reads the webhook first), but may get deliveries in its log, ended
 * "not sent", for that long. In exposure: webhook ids, key ids and scopes, no secret.
 */
import type { WebhookSubscriber } from '../domain/webhook.ts';
import { config } from '../shared/config.ts';
import { expiringCache } from '../shared/expiring-cache.ts';
import { listSubscribers } from '../store/webhook-store.ts';

const subscribers = expiringCache<WebhookSubscriber[]>({
  ttlMs: () => config.webhookSubscribersCacheMs,
  // One entry per event type: the bound is never reached.
  maxEntries: 100,
  load: listSubscribers,
});

export const cachedSubscribers = (eventType: string, now = Date.now()): Promise<WebhookSubscriber[]> =>
  subscribers.get(eventType, now);
