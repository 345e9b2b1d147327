/**
 * A function fed by the table's stream through a filtered event source mapping: the shape every stream
 * consumer shares (the library sweeper, the event publisher). A batch that crashes is split in two
 * (bisect) and retried; a handler that reports its first failed record (ReportBatchItemFailures) is
 * retried from that record, so nothing after it goes first; records still failing after the consumer's
 * retries go to an SQS dead-letter queue (the mapping's on-failure destination), which Monitoring alarms
 * on. Each consumer states its own mapping settings and what its failures mean to an operator. Locally
 * the same handler gets the same filtered records (lib/local/stream-consumers.ts, read by
 * lib/local/table-stream.ts); test/infra/stack.test.ts checks that both sides list the same consumers.
 */
import { Validations, type Duration } from 'aws-cdk-lib';
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, type StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterQueue, nagArnOf } from './dead-letters.ts';
import { HandlerFunction } from './handler-function.ts';
import { type RoutelessFunction } from './routeless-functions.ts';

/** The event source mapping's settings that differ between consumers (each says why in its construct). */
export interface StreamMapping {
  startingPosition: StartingPosition;
  batchSize: number;
  maxBatchingWindow: Duration;
  retryAttempts: number;
  /** Records older than this go to the dead-letter queue whatever the attempts left; default: the stream's 24 hours. */
  maxRecordAge?: Duration;
  /** Concurrent batches per shard (default 1); records of one item stay in one batch, in order. */
  parallelizationFactor?: number;
}

/** What Monitoring shows and says about a consumer. */
export interface StreamConsumerMonitoring {
  /** Dashboard title, e.g. `Library sweeper`. */
  title: string;
  /** The metrics its handler emits (functions/shared/metric-names.ts) and what they count, for the dashboard. */
  counts: readonly string[];
  counted: string;
  /** Alarm descriptions: a crashed, timed-out or throttled invocation, and a dead letter. */
  onFailure: string;
  onDeadLetter: string;
  /** For a consumer someone waits for: an alarm once records are handed over this late (stuck or failing). */
  late?: { after: Duration; description: string };
}

export interface StreamConsumerProps {
  namePrefix: string;
  table: ITable;
  logRetention: RetentionDays;
  /** Names its dead-letter queue and alarms, e.g. `library-sweeper`. */
  name: string;
  function: RoutelessFunction;
  /** The Lambda event filter pattern (functions/contracts/), the same one the local consumer applies. */
  filter: Record<string, unknown>;
  mapping: StreamMapping;
  monitoring: StreamConsumerMonitoring;
}

export class StreamConsumer extends Construct {
  readonly name: string;
  /** What Monitoring shows and says about this consumer. */
  readonly monitoring: StreamConsumerMonitoring;
  /** Where the mapping puts what it gave up on: a description of each failed batch, not its records. */
  readonly deadLetters: Queue;
  readonly handlerFunction: HandlerFunction;

  constructor(scope: Construct, id: string, props: StreamConsumerProps) {
    super(scope, id);
    ({ name: this.name, monitoring: this.monitoring } = props);
    this.deadLetters = deadLetterQueue(
      this,
      `${props.namePrefix}-${props.name}-dlq`,
      `the ${props.name} stream mapping`,
    );
    this.handlerFunction = new HandlerFunction(this, 'Function', {
      ...props.function,
      namePrefix: props.namePrefix,
      logRetention: props.logRetention,
    });
    this.handlerFunction.function.addEventSource(
      new DynamoEventSource(props.table, {
        ...props.mapping,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.deadLetters),
        filters: [FilterCriteria.filter(props.filter)],
      }),
    );

    Validations.of(this.handlerFunction.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        "This function is invoked by its stream mapping, never asynchronously; failed batches go to the mapping's on-failure destination (this construct's dead-letter queue), which a function-level DLQ would never receive.",
    });
    Validations.of(this.handlerFunction.role).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'X-Ray PutTraceSegments/PutTelemetryRecords and dynamodb:ListStreams do not support resource-level permissions; AWS documents Resource "*" for them.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${nagArnOf(props.table)}/stream/*]`,
        reason:
          "The stream ARN carries a creation timestamp that is known only after deployment; the grant is the one table's streams.",
      },
    );
  }

  /** Dead letters waiting in its queue. */
  metricDeadLetters(period: Duration): Metric {
    return this.deadLetters.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' });
  }

  /** How long records had waited in the stream when handed over (ms): grows while a record keeps failing. */
  metricIteratorAge(period: Duration): Metric {
    return this.handlerFunction.function.metric('IteratorAge', { statistic: 'Maximum', period });
  }
}
