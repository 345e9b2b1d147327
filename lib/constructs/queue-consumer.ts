/**
 * A queue, its dead letters and the function its event source mapping feeds (renditions, the webhook fan-out
 * and deliveries): one message per invocation, failures reported per message, a message that keeps failing
 * moved to the dead letters after `maxReceiveCount` deliveries, and the checks' findings that do not apply
 * to such a function acknowledged with why.
 */
import { Duration, Names, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterQueue } from './dead-letters.ts';
import { HandlerFunction } from './handler-function.ts';
import type { RoutelessFunction } from './routeless-functions.ts';

export interface ConsumedQueueProps {
  namePrefix: string;
  /** The queue's name without the stage prefix, and the deliveries a message gets before its dead letters. */
  settings: { name: string; maxReceiveCount: number };
  spec: RoutelessFunction;
  logRetention: RetentionDays;
  /** How long the queue keeps a message. */
  retentionPeriod: Duration;
  /** Who else sends failures to the dead letters (an EventBridge rule's target), for the acknowledgment. */
  deadLettersAlsoOf?: string;
  environment?: Record<string, string>;
  /** How many invocations its event source runs at once (SQS: 2 to 1000); unset, as many as Lambda allows. */
  maxConcurrency?: number;
  bundling?: Partial<BundlingOptions>;
}

export class ConsumedQueue extends Construct {
  /** The queue's name without the stage prefix (alarms are named after it). */
  readonly name: string;
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly handlerFunction: HandlerFunction;

  constructor(scope: Construct, id: string, props: ConsumedQueueProps) {
    super(scope, id);
    const { settings, spec } = props;
    this.name = settings.name;
    this.deadLetters = deadLetterQueue(
      this,
      `${props.namePrefix}-${settings.name}-dlq`,
      `the ${settings.name} queue (after maxReceiveCount deliveries)${props.deadLettersAlsoOf ? ` and of ${props.deadLettersAlsoOf}` : ''}`,
    );
    this.queue = new Queue(this, 'Queue', {
      queueName: `${props.namePrefix}-${settings.name}`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS's advice for a Lambda source: six times the function's timeout, so a slow batch is not handed out twice.
      visibilityTimeout: Duration.seconds(spec.timeout.toSeconds() * 6),
      retentionPeriod: props.retentionPeriod,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: settings.maxReceiveCount },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.handlerFunction = new HandlerFunction(this, 'Function', {
      ...spec,
      namePrefix: props.namePrefix,
      logRetention: props.logRetention,
      ...(props.environment ? { environment: props.environment } : {}),
      ...(props.bundling ? { bundling: props.bundling } : {}),
    });
    const consumer = this.handlerFunction.function;
    consumer.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 1,
        reportBatchItemFailures: true,
        ...(props.maxConcurrency !== undefined ? { maxConcurrency: props.maxConcurrency } : {}),
      }),
    );
    Validations.of(consumer).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        "The function is invoked by its SQS event source mapping, never asynchronously; failed messages go to the queue's dead-letter queue.",
    });
    const mapping = consumer.node.findChild(`SqsEventSource:${Names.nodeUniqueId(this.queue.node)}`);
    Validations.of(mapping.node.defaultChild ?? mapping).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        "An SQS event source mapping takes no on-failure destination (only stream and Kafka sources do); the queue's redrive policy moves a message to the dead-letter queue after maxReceiveCount deliveries.",
    });
    Validations.of(this.handlerFunction.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray PutTraceSegments/PutTelemetryRecords do not support resource-level permissions; AWS documents Resource "*" for them.',
    });
  }
}
