/**
 * One event sent to one webhook: the delivery, its attempts, and the rules that decide what follows an
 * attempt (Standard Webhooks' retry schedule, 410 disables, five days of failures disable, a shorter
 * streak of failures pauses the webhook: its deliveries wait). Pure: the delivery service reads and
 * writes, sends, and asks these rules.
 */
import { createHash } from 'node:crypto';
import { timeOrderedGuid } from '../shared/ids.ts';
import type { WebhookEventType } from '../webhooks/event-subscriptions.ts';

/** Paused: not sent, waiting for its webhook to resume (notSentReason says so). */
export const DELIVERY_STATES = ['Pending', 'Delivered', 'Failed', 'Paused'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface DeliveryAttempt {
  /** Epoch ms when the attempt began. */
  at: number;
  /** The receiver's HTTP status; 0 when there was none (refused URL, connection error, time-out). */
  status: number;
  durationMs: number;
}

export interface Delivery {
  /** The `webhook-id` sent: the same for every attempt and redelivery, so receivers drop repeats. */
  deliveryId: string;
  webhookId: string;
  eventType: WebhookEventType;
  /** The domain event's id: one delivery per event and webhook. */
  eventId: string;
  createdAt: number;
  state: DeliveryState;
  /** The latest KEPT_ATTEMPTS attempts, oldest first. */
  attempts: DeliveryAttempt[];
  /** Attempts made in all (absent on deliveries stored before it was counted: `attempts` holds them all). */
  attemptCount?: number;
  /**
   * Read from the log's first partition, where deliveries stored before the log was spread over partitions
   * stay whatever their id: their writes go there too (store/webhook-delivery-store.ts).
   */
  inFirstShard?: true;
  /**
   * The queue message that made the latest attempt: that message received again (its retry could not be
   * queued) queues the retry without sending again; any other message of an attempt already made is a repeat.
   */
  attemptMessageId?: string;
  /** Why its last message was not sent (its webhook disabled or paused, its key revoked); absent once an attempt is made. */
  notSentReason?: string;
  /** When it was last redelivered (epoch ms): a delivery takes one redelivery per REDELIVERY_INTERVAL_MS. */
  redeliveredAt?: number;
  /** The JSON body every attempt sends: `{ type, timestamp, data }`, data in its webhook's scope's partner form. */
  body: string;
}

/** Attempts a delivery's record keeps, the latest: a record stays far below DynamoDB's 400 KB whatever is redelivered. */
export const KEPT_ATTEMPTS = 50;

export const attemptCountOf = (delivery: Delivery): number => delivery.attemptCount ?? delivery.attempts.length;

/** What decides a delivery message's fate besides its delivery (contracts/webhook-queues.ts DeliveryMessage). */
export interface MessageChain {
  /** The queue message that made the attempt before this one (absent on a delivery's first message). */
  previous?: string | undefined;
  redelivery?: true | undefined;
  probe?: number | undefined;
}

/**
 * What a delivery message does, given its delivery as read: `send` its attempt; `continue` (it made the
 * latest attempt and broke after it) only what follows that attempt: its retry, the pause's probe, the
 * resume; or `drop` it. Each attempt continues the chain of the message that made the one before, so a
 * second chain (a repeated fan-out, an SQS repeat) dies at its first message. A paused delivery's probes are
 * one chain too, each naming the attempt before it; once resumed, its first message starts a new chain.
 */
export function messageAction(
  delivery: Delivery,
  message: MessageChain,
  messageId: string,
): 'send' | 'continue' | 'drop' {
  if (delivery.attemptMessageId === messageId) return 'continue';
  if (delivery.state === 'Paused') {
    // A paused delivery takes no redelivery: one finding it Paused repeats an attempt followed by others.
    if (message.redelivery) return 'drop';
    if (message.probe === undefined || message.previous === undefined) return 'send';
    return delivery.attemptMessageId === message.previous ? 'send' : 'drop';
  }
  if (delivery.state !== 'Pending') return 'drop';
  if (message.redelivery) return 'send';
  if (message.previous === undefined) return attemptCountOf(delivery) === 0 ? 'send' : 'drop';
  // A chain begun before messages named their predecessor goes on.
  return delivery.attemptMessageId === undefined || delivery.attemptMessageId === message.previous ? 'send' : 'drop';
}

/** The delivery's attempts with one more: the latest KEPT_ATTEMPTS, and the count of all. */
export const withAttempt = (delivery: Delivery, attempt: DeliveryAttempt) => ({
  attempts: [...delivery.attempts, attempt].slice(-KEPT_ATTEMPTS),
  attemptCount: attemptCountOf(delivery) + 1,
});

/**
 * A delivery takes one redelivery per this interval, and none while it is Pending or Paused: redelivering it in a
 * loop, in parallel or not, sends at most one request a minute to its receiver.
 */
export const REDELIVERY_INTERVAL_MS = 60_000;

/** A webhook whose deliveries failed this long without a success in between is disabled. */
export const FAILING_DISABLE_MS = 5 * 24 * 60 * 60 * 1000;

/**
 * The delivery id of an event for a webhook: time-ordered by the event's time (the log lists newest first
 * straight from the key), and the same for the same event and webhook, so a repeated fan-out of one event
 * finds the delivery it made before instead of making a second.
 */
export const deliveryIdFor = (eventId: string, webhookId: string, eventTime: number): string =>
  timeOrderedGuid(eventTime, createHash('sha256').update(`${eventId}\n${webhookId}`).digest());

/**
 * The body Standard Webhooks prescribes: the event's name, its time, and its data (the event's partner form
 * for the receiving key's scope: functions/webhooks/partner-forms.ts).
 */
export const deliveryBody = (event: { type: WebhookEventType; time: number; data: Record<string, unknown> }) =>
  JSON.stringify({ type: event.type, timestamp: new Date(event.time).toISOString(), data: event.data });

/** Why a delivery of a paused webhook waits, as its log says. */
export const WAITING_REASON =
  'waiting: its webhook is paused, as its deliveries kept failing; sent once a probe of the webhook succeeds';

export type AttemptResult = { status: number } | { error: string };

export const succeeded = (result: AttemptResult): boolean =>
  'status' in result && result.status >= 200 && result.status < 300;

/** What follows an attempt. Paused: the delivery waits, and its webhook is (or stays) paused. */
export type AttemptOutcome =
  | { state: 'Delivered' }
  | { state: 'Pending'; retryAfterSeconds: number }
  | { state: 'Paused' }
  | { state: 'Failed'; disableWebhook?: string };

/**
 * The outcome of attempt number `attempt` (1-based) of a delivery. `schedule`: the delays before each retry;
 * `failingSince`: when the webhook's deliveries began failing without a success since (undefined: they are
 * not), which this attempt's failure may carry past `pauseAfterMs` (the webhook pauses) or past
 * FAILING_DISABLE_MS (it is disabled).
 */
export function attemptOutcome(
  result: AttemptResult,
  attempt: number,
  schedule: readonly number[],
  failing: { since: number | undefined; pauseAfterMs: number },
  now: number,
): AttemptOutcome {
  if (succeeded(result)) return { state: 'Delivered' };
  if ('status' in result && result.status === 410)
    return { state: 'Failed', disableWebhook: 'the receiver answered 410 Gone' };
  const failingFor = failing.since === undefined ? 0 : now - failing.since;
  if (failingFor >= FAILING_DISABLE_MS)
    return { state: 'Failed', disableWebhook: 'deliveries failed for 5 days without a success' };
  if (failing.since !== undefined && failingFor >= failing.pauseAfterMs) return { state: 'Paused' };
  const delay = schedule[attempt - 1];
  return delay === undefined ? { state: 'Failed' } : { state: 'Pending', retryAfterSeconds: delay };
}
