/**
 * One attempt of one delivery (a message of the deliveries queue): read the webhook and the delivery, open
 * the secrets (the current one, and the previous one while its rotation overlap lasts), send, record the
 * attempt, and answer whether and when to try again (domain/webhook-delivery.ts). A 410, or five days of
 * failures, disables the webhook at once; a shorter streak pauses it (webhook-pause-service.ts). Nothing is
 * sent for a disabled webhook or a revoked key: the delivery ends Failed with the reason; for a paused
 * one, only its probe and redeliveries are sent, and the rest wait.
 */
import type { DeliveryMessage } from '../contracts/webhook-queues.ts';
import {
  attemptOutcome,
  messageAction,
  succeeded,
  type AttemptOutcome,
  type Delivery,
} from '../domain/webhook-delivery.ts';
import { disabled, KEY_REVOKED, type Webhook } from '../domain/webhook.ts';
import { config } from '../shared/config.ts';
import { METRIC } from '../shared/metric-names.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { logger } from '../shared/powertools.ts';
import { getDelivery, recordAttempt, settleUnsent } from '../store/webhook-delivery-store.ts';
import { getWebhook, keyRevoked, recordDeliveryStreak, replaceWebhook } from '../store/webhook-store.ts';
import { pause, resume, scheduleProbe, startRequeue, waitForResume } from './webhook-pause-service.ts';
import { sendDelivery } from '../webhooks/send-delivery.ts';
import { openSecret } from '../webhooks/webhook-secrets.ts';
import { webhookTargetPolicy } from '../webhooks/webhook-target.ts';

/** The secrets that sign now: the current one first, the previous one until its overlap ends. */
async function signingSecrets(webhook: Webhook, now: number): Promise<string[]> {
  const sealed = [webhook.sealedSecret];
  if (webhook.previousSecret && webhook.previousSecret.expiresAt > now)
    sealed.push(webhook.previousSecret.sealedSecret);
  return Promise.all(sealed.map((secret) => openSecret(webhook.webhookId, secret)));
}

/**
 * Disables the webhook for the reason `reasonFor` gives it, judged on the webhook as it is now: a delivery's
 * outcome recorded meanwhile (its failure streak begun or ended) is read again, a change of its key's (a new
 * revision) stands.
 */
async function disable(webhook: Webhook, reasonFor: (read: Webhook) => string | undefined): Promise<void> {
  let read: Webhook | undefined = webhook;
  for (let tries = 0; tries < 3 && read?.revision === webhook.revision; tries++) {
    const reason = reasonFor(read);
    if (reason === undefined) return;
    if (await replaceWebhook(read, disabled(read, reason))) {
      emitMetrics({ [METRIC.WebhooksDisabled]: 1 });
      return logger.warn('webhook disabled', { webhookId: webhook.webhookId, reason });
    }
    read = await getWebhook(webhook.ownerKeyId, webhook.webhookId);
  }
  logger.warn('webhook left as its key changed it meanwhile', { webhookId: webhook.webhookId });
}

/**
 * What follows the latest attempt, done again by the message that made it (it broke after recording it; what
 * it sent on, if it did, dies as a second chain): a Pending delivery's retry; a success's resume of the pause
 * it found; a failure's pause, or the next probe when the pause probes this delivery, or, its streak ended
 * meanwhile, the queueing of what waits. Nothing is sent again.
 */
async function continueAfterAttempt(
  webhook: Webhook,
  delivery: Delivery,
  attempt: number,
  messageId: string,
  now: number,
): Promise<number | undefined> {
  const last = delivery.attempts.at(-1);
  if (delivery.state === 'Pending') return config.webhookRetrySchedule[attempt - 1];
  if (
    delivery.state === 'Delivered' &&
    last &&
    webhook.pausedAt !== undefined &&
    webhook.pausedAt <= last.at + last.durationMs
  )
    await resume(webhook, now);
  else if (delivery.state === 'Paused' && webhook.pausedAt === undefined) {
    const failing = webhook.failingSince !== undefined && now - webhook.failingSince >= config.webhookPauseAfterMs;
    await (failing ? pause(webhook, delivery, messageId, now) : startRequeue(webhook, now));
  } else if (delivery.state === 'Paused' && webhook.probeDeliveryId === delivery.deliveryId)
    await scheduleProbe(webhook, delivery.deliveryId, webhook.pausedAt as number, messageId, now);
  return undefined;
}

/** Why a delivery to the webhook is not sent: its key revoked (whatever the webhook says), or it disabled. */
function notSentReason(webhook: Webhook, revoked: boolean): string | undefined {
  if (revoked) return `not sent: ${KEY_REVOKED}`;
  if (webhook.status === 'Disabled')
    return `not sent: the webhook is disabled${webhook.disabledReason ? ` (${webhook.disabledReason})` : ''}`;
  return undefined;
}

/**
 * Attempt number `attempt` of the message's delivery, made by queue message `messageId`. Answers
 * `retryAfterSeconds` when it should be tried again after that long; undefined when it is settled, or the
 * message repeats an attempt made already (domain/webhook-delivery.ts, messageAction). A redelivery is one
 * attempt: no retries follow it.
 */
export async function attemptDelivery(
  message: DeliveryMessage,
  attempt: number,
  messageId: string,
  now = Date.now(),
): Promise<number | undefined> {
  const [webhook, delivery, revoked] = await Promise.all([
    getWebhook(message.ownerKeyId, message.webhookId),
    getDelivery(message.webhookId, message.deliveryId),
    keyRevoked(message.ownerKeyId),
  ]);
  // Deleted meanwhile: nothing to deliver.
  if (!webhook || !delivery) return undefined;
  const action = messageAction(delivery, message, messageId);
  if (action === 'drop') return undefined;
  if (action === 'continue') return continueAfterAttempt(webhook, delivery, attempt, messageId, now);
  const unsent = notSentReason(webhook, revoked);
  if (unsent !== undefined) {
    await settleUnsent(delivery, 'Failed', unsent);
    emitMetrics({ [METRIC.WebhookDeliveriesFailed]: 1 });
    logger.info('webhook delivery not sent', { webhookId: webhook.webhookId, reason: unsent });
    // A webhook its key changed after the revocation (within the authorizer's cache) goes disabled too.
    if (revoked && webhook.status === 'Enabled') await disable(webhook, () => KEY_REVOKED);
    return undefined;
  }
  // A probe of a pause that ended: the resume queues its delivery with the others that waited.
  if (message.probe !== undefined && message.probe !== webhook.pausedAt) return undefined;
  if (webhook.pausedAt !== undefined && message.probe === undefined && !message.redelivery) {
    await waitForResume(delivery);
    return undefined;
  }
  const result = await sendDelivery(
    webhook.url,
    { id: delivery.deliveryId, timestamp: new Date(now), body: delivery.body },
    await signingSecrets(webhook, now),
    { ...webhookTargetPolicy(), timeoutMs: config.webhookTimeoutMs },
  );
  const finished = Date.now();
  const single = message.redelivery === true || message.probe !== undefined;
  const outcomeWith = (failingSince: number | undefined): AttemptOutcome =>
    attemptOutcome(
      result,
      attempt,
      single ? [] : config.webhookRetrySchedule,
      { since: failingSince, pauseAfterMs: config.webhookPauseAfterMs },
      finished,
    );
  const outcome = outcomeWith(webhook.failingSince);
  const recorded = await recordAttempt(
    delivery,
    outcome.state,
    { at: now, status: 'status' in result ? result.status : 0, durationMs: finished - now },
    messageId,
  );
  if (!recorded) {
    logger.info('webhook delivery attempt repeated by another message; this one ends', {
      webhookId: webhook.webhookId,
      deliveryId: delivery.deliveryId,
    });
    return undefined;
  }
  if ('error' in result) logger.info('webhook delivery failed', { webhookId: webhook.webhookId, error: result.error });
  const delivered = succeeded(result);
  emitMetrics({
    [delivered ? METRIC.WebhookAttemptsDelivered : METRIC.WebhookAttemptsFailed]: 1,
    // A partner already failing is counted once, when it started: many at once means our side broke.
    [METRIC.WebhooksStartedFailing]: !delivered && webhook.failingSince === undefined ? 1 : 0,
    [METRIC.WebhookDeliveriesFailed]: outcome.state === 'Failed' ? 1 : 0,
  });
  if (outcome.state === 'Failed' && outcome.disableWebhook)
    await disable(webhook, (read) => {
      const now = outcomeWith(read.failingSince);
      return now.state === 'Failed' ? now.disableWebhook : undefined;
    });
  else if (delivered && webhook.pausedAt !== undefined) await resume(webhook, finished);
  else if (outcome.state === 'Paused') {
    await waitForResume(delivery);
    if (webhook.pausedAt === undefined) await pause(webhook, delivery, messageId, finished);
    else if (message.probe !== undefined)
      await scheduleProbe(webhook, delivery.deliveryId, webhook.pausedAt, messageId, finished);
  } else if (!(await recordDeliveryStreak(webhook, delivered, finished))) {
    // A success after the webhook was paused (by another attempt, since this one read it) resumes it.
    const paused = await getWebhook(webhook.ownerKeyId, webhook.webhookId);
    if (paused?.pausedAt !== undefined) await resume(paused, finished);
  }
  return outcome.state === 'Pending' ? outcome.retryAfterSeconds : undefined;
}
