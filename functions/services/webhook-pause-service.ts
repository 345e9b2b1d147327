/**
 * Pausing a partner that keeps failing, so it costs nothing meanwhile: a failure after
 * WEBHOOK_PAUSE_AFTER_MINUTES of failures without a success pauses its webhook. Its deliveries then wait
 * (State Paused, on its waiting list) instead of being attempted and retried; one probe at a time, every
 * WEBHOOK_PROBE_SECONDS, sends the delivery that paused it. The first success (a probe, or the partner's
 * redelivery) resumes it, and its waiting deliveries are queued again oldest first, a page per message.
 * The five-day rule still holds over a paused webhook (its probes keep failing: it is disabled), and a
 * revoked key's webhooks send nothing, probes included (services/webhook-delivery-service.ts).
 */
import type { DeliveryMessage, RequeueMessage } from '../contracts/webhook-queues.ts';
import { WAITING_REASON, type Delivery } from '../domain/webhook-delivery.ts';
import type { Webhook } from '../domain/webhook.ts';
import { config, MAX_SUBSCRIBERS_CACHE_SECONDS } from '../shared/config.ts';
import { METRIC } from '../shared/metric-names.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { logger } from '../shared/powertools.ts';
import { settleUnsent } from '../store/webhook-delivery-store.ts';
import { getWebhook, keyRevoked, pauseWebhook, resumeWebhook } from '../store/webhook-store.ts';
import { addWaiting, oldestWaiting, removeWaiting } from '../store/webhook-waiting-store.ts';
import { sendDeliveryMessageAt, sendDeliveryMessages } from '../webhooks/delivery-queue.ts';

/** Waiting deliveries queued per message of a resume: a page, never the whole list at once. */
const REQUEUE_PAGE = 100;
/**
 * How long a resume keeps looking for deliveries that began waiting late: a fan-out's cache (at most
 * MAX_SUBSCRIBERS_CACHE_SECONDS, whichever function ends the pause) may still hold the webhook as paused.
 */
const REQUEUE_WINDOW_MS = (MAX_SUBSCRIBERS_CACHE_SECONDS + 5) * 1000;

/** Records the delivery as waiting for its paused webhook: not sent, and on the webhook's waiting list. */
export async function waitForResume(delivery: Delivery): Promise<void> {
  await settleUnsent(delivery, 'Paused', WAITING_REASON);
  await addWaiting(delivery);
}

/**
 * Sends the next probe of the webhook's pause, due a probe interval after `now`: it sends `deliveryId` and
 * follows the attempt queue message `previous` made (domain/webhook-delivery.ts messageAction).
 */
export async function scheduleProbe(
  webhook: Webhook,
  deliveryId: string,
  pausedAt: number,
  previous: string,
  now: number,
) {
  const probe: DeliveryMessage = {
    webhookId: webhook.webhookId,
    ownerKeyId: webhook.ownerKeyId,
    deliveryId,
    attempt: 1,
    probe: pausedAt,
    previous,
  };
  await sendDeliveryMessageAt(probe, now + config.webhookProbeIntervalMs, now);
}

/**
 * Pauses the webhook whose delivery just failed past the pause window (an attempt queue message `messageId`
 * made), and sends its first probe; the delivery already waits. Another attempt that paused it first, or a
 * success meanwhile, leaves it as it is.
 */
export async function pause(webhook: Webhook, delivery: Delivery, messageId: string, now: number): Promise<void> {
  if (!(await pauseWebhook(webhook, now, delivery.deliveryId))) {
    // A success ended the streak meanwhile (or its key enabled it afresh): the delivery need not wait.
    const read = await getWebhook(webhook.ownerKeyId, webhook.webhookId);
    if (read?.status === 'Enabled' && read.pausedAt === undefined) await startRequeue(read, now);
    return;
  }
  emitMetrics({ [METRIC.WebhooksPaused]: 1 });
  logger.warn('webhook paused', { webhookId: webhook.webhookId, failingSince: webhook.failingSince });
  await scheduleProbe(webhook, delivery.deliveryId, now, messageId, now);
}

/**
 * Ends the pause after a success, and queues the deliveries that waited (requeue). A change of its key's
 * meanwhile (a rotation) is read again: the pause must end, or no probe would follow.
 */
export async function resume(webhook: Webhook, now: number): Promise<void> {
  let read: Webhook | undefined = webhook;
  let resumed: Webhook | undefined;
  for (let tries = 0; tries < 3 && read && read.pausedAt === webhook.pausedAt && !resumed; tries++) {
    resumed = await resumeWebhook(read);
    if (!resumed) read = await getWebhook(webhook.ownerKeyId, webhook.webhookId);
  }
  if (!resumed) return;
  emitMetrics({ [METRIC.WebhooksResumed]: 1 });
  logger.info('webhook resumed', { webhookId: webhook.webhookId, pausedAt: webhook.pausedAt });
  await startRequeue(webhook, now);
}

/** Sends the first message of a resume's requeue. */
export async function startRequeue(webhook: Webhook, now: number): Promise<void> {
  await sendDeliveryMessageAt(
    {
      webhookId: webhook.webhookId,
      ownerKeyId: webhook.ownerKeyId,
      requeueUntil: now + REQUEUE_WINDOW_MS,
    },
    now,
    now,
  );
}

/**
 * Queues the oldest page of the webhook's waiting deliveries (as first attempts, with the whole retry
 * schedule) and takes them off the list, then sends the message on for the next page; once the list is
 * empty, once more at `requeueUntil`. A webhook paused again, disabled, deleted or of a revoked key keeps
 * what waits (a later resume or enabling queues it).
 */
export async function requeueWaiting(message: RequeueMessage, now: number): Promise<void> {
  const [webhook, revoked] = await Promise.all([
    getWebhook(message.ownerKeyId, message.webhookId),
    keyRevoked(message.ownerKeyId),
  ]);
  if (!webhook || revoked || webhook.status !== 'Enabled' || webhook.pausedAt !== undefined) return;
  const { waiting, more } = await oldestWaiting(webhook.webhookId, REQUEUE_PAGE);
  const deliveryIds = waiting.map((delivery) => delivery.deliveryId);
  await sendDeliveryMessages(
    waiting.map(({ deliveryId, correlationId }) => ({
      webhookId: webhook.webhookId,
      ownerKeyId: webhook.ownerKeyId,
      deliveryId,
      // Each keeps the request id of the work that made it, not the probe's that ended the pause.
      ...(correlationId === undefined ? {} : { correlationId }),
    })),
  );
  await removeWaiting(webhook.webhookId, deliveryIds);
  if (deliveryIds.length > 0)
    logger.info('waiting deliveries queued', { webhookId: webhook.webhookId, count: deliveryIds.length });
  if (more) await sendDeliveryMessageAt(message, now, now);
  else if (now < message.requeueUntil) await sendDeliveryMessageAt(message, message.requeueUntil, now);
}
