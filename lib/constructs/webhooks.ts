/**
 * The webhook pipeline (docs/design.md, Webhooks): an EventBridge rule sends every subscribable event of the
 * service's bus to the fan-out queue, whose function writes one delivery per subscribed webhook and sends one
 * message per delivery to the deliveries queue, whose function makes one signed attempt per message. The
 * publisher never waits for a partner. A failed attempt's retry is a new message delayed by the retry
 * schedule (functions/webhooks/delivery-queue.ts), so nothing waits in flight between attempts; a message
 * comes back only when its function broke (storage, KMS), and one that keeps breaking reaches the
 * dead-letter queue after maxReceiveCount receives, which an alarm watches (one per queue). At most
 * WEBHOOK_MAX_CONCURRENCY deliveries run at once: slow partners wait in the queue, not in the account's
 * Lambda concurrency.
 */
import { Duration } from 'aws-cdk-lib';
import { Rule, type IEventBus } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { WEBHOOK_QUEUES } from '../../functions/contracts/webhook-queues.ts';
import { webhookDeliverTableGrant, webhookFanoutTableGrant } from '../../functions/routes.ts';
import { SERVICE_NAME } from '../../functions/shared/metric-names.ts';
import { WEBHOOK_EVENT_TYPES } from '../../functions/webhooks/event-subscriptions.ts';
import { ROUTELESS_FUNCTIONS } from './routeless-functions.ts';
import { ConsumedQueue } from './queue-consumer.ts';

export interface WebhooksProps {
  namePrefix: string;
  table: ITable;
  bus: IEventBus;
  webhookSecrets: IKey;
  logRetention: RetentionDays;
  /** Deliveries run at once (WEBHOOK_MAX_CONCURRENCY). */
  maxConcurrency: number;
  /** Fan-outs run at once (WEBHOOK_FANOUT_MAX_CONCURRENCY, lib/consumer-concurrency.ts). */
  fanoutMaxConcurrency: number;
  /** WEBHOOK_PAUSE_AFTER_MINUTES of the delivery function. */
  pauseAfterMinutes: number;
  /** WEBHOOK_SUBSCRIBERS_CACHE_SECONDS of the fan-out. */
  subscribersCacheSeconds: number;
}

export class Webhooks extends Construct {
  readonly fanout: ConsumedQueue;
  readonly deliveries: ConsumedQueue;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const common = {
      namePrefix: props.namePrefix,
      logRetention: props.logRetention,
      retentionPeriod: Duration.days(14),
    };
    this.deliveries = new ConsumedQueue(this, 'Deliveries', {
      ...common,
      settings: WEBHOOK_QUEUES.deliveries,
      spec: ROUTELESS_FUNCTIONS.webhookDeliver,
      maxConcurrency: props.maxConcurrency,
      environment: { WEBHOOK_PAUSE_AFTER_MINUTES: String(props.pauseAfterMinutes) },
    });
    // The delivery function sends a retry to its own queue, delayed (functions/webhooks/delivery-queue.ts).
    this.deliveries.handlerFunction.grantWebhookDeliveries(this.deliveries.queue);
    this.deliveries.handlerFunction.grantTable(props.table, webhookDeliverTableGrant);
    this.deliveries.handlerFunction.grantWebhookSecrets(props.webhookSecrets, 'open');

    this.fanout = new ConsumedQueue(this, 'Fanout', {
      ...common,
      settings: WEBHOOK_QUEUES.fanout,
      spec: ROUTELESS_FUNCTIONS.webhookFanout,
      maxConcurrency: props.fanoutMaxConcurrency,
      environment: { WEBHOOK_SUBSCRIBERS_CACHE_SECONDS: String(props.subscribersCacheSeconds) },
    });
    this.fanout.handlerFunction.grantTable(props.table, webhookFanoutTableGrant, ['dynamodb:PutItem']);
    this.fanout.handlerFunction.grantWebhookDeliveries(this.deliveries.queue);

    new Rule(this, 'Subscribable', {
      ruleName: `${props.namePrefix}-webhooks`,
      description: 'Subscribable events -> the webhook fan-out queue',
      eventBus: props.bus,
      eventPattern: { source: [SERVICE_NAME], detailType: [...WEBHOOK_EVENT_TYPES] },
      // An event EventBridge cannot hand to the queue (after its own retries) goes to its dead letters.
      targets: [new SqsQueue(this.fanout.queue, { deadLetterQueue: this.fanout.deadLetters })],
    });
  }

  get consumers(): ConsumedQueue[] {
    return [this.fanout, this.deliveries];
  }
}
