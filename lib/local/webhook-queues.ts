/**
 * The webhook pipeline's AWS parts, in process: the EventBridge rule that sends subscribable events to the
 * fan-out queue, that queue with the fan-out function, and the deliveries queue with the delivery function,
 * which the functions reach through the real SQS client on the local SQS front (sending deliveries, setting a
 * failed delivery's retry delay). Both queues are durable (event-delivery.ts): a delivery waiting for its
 * retry still waits after a restart, and a message a crash cut short is delivered again.
 */
import { join } from 'node:path';
import { WEBHOOK_QUEUES } from '../../functions/contracts/webhook-queues.ts';
import type { EventEnvelope } from '../../functions/shared/events.ts';
import { isWebhookEventType } from '../../functions/webhooks/event-subscriptions.ts';
import { localQueueUrl, ruleToQueue, startLocalQueue, type QueueHandler } from './event-delivery.ts';
import type { LocalSqsFront } from './sqs-front.ts';

/** The environment the webhook functions read, for the local front at `endpoint`. */
export const webhookQueueEnv = (endpoint: string) => ({
  AWS_ENDPOINT_URL_SQS: endpoint,
  WEBHOOK_DELIVERY_QUEUE_URL: localQueueUrl(WEBHOOK_QUEUES.deliveries.name, endpoint),
});

export interface WebhookQueues {
  drain(): Promise<void>;
  close(): Promise<void>;
}

export function startWebhookQueues(options: {
  loadHandler: (name: string) => Promise<QueueHandler>;
  subscribe: (subscriber: (event: EventEnvelope) => void) => () => void;
  sqsFront: LocalSqsFront;
  dataDir: string;
  /** Messages each queue has in flight at most (LOCAL_SQS_MAX_IN_FLIGHT); unbounded when unset. */
  maxInFlight?: number;
  /** Deliveries run at once (WEBHOOK_MAX_CONCURRENCY); the local default when unset. */
  deliveriesConcurrency?: number;
  /** Fan-outs run at once (WEBHOOK_FANOUT_MAX_CONCURRENCY); the local default when unset. */
  fanoutConcurrency?: number;
}): WebhookQueues {
  const queueOf = (settings: (typeof WEBHOOK_QUEUES)[keyof typeof WEBHOOK_QUEUES], concurrency?: number) =>
    startLocalQueue({
      ...settings,
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(options.maxInFlight !== undefined ? { maxInFlight: options.maxInFlight } : {}),
      folder: join(options.dataDir, 'queues', settings.name),
      loadHandler: options.loadHandler,
      endpoint: options.sqsFront.endpoint,
    });
  const deliveries = queueOf(WEBHOOK_QUEUES.deliveries, options.deliveriesConcurrency);
  options.sqsFront.serve(deliveries);
  const fanout = queueOf(WEBHOOK_QUEUES.fanout, options.fanoutConcurrency);
  const unsubscribe = ruleToQueue(options.subscribe, isWebhookEventType, fanout);
  const queues = [fanout, deliveries];
  return {
    // A fan-out sends deliveries: the fan-out queue drains first.
    async drain() {
      for (const queue of queues) await queue.drain();
    },
    async close() {
      unsubscribe();
      for (const queue of queues) await queue.close();
    },
  };
}
