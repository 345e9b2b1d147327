/**
 * The event publisher: the table's stream feeds each new outbox record (functions/store/outbox-store.ts,
 * written in the same transaction as the change it reports) to a function
 * (functions/handlers/publish-events.ts) that puts its domain event on the service's EventBridge bus. A
 * stream consumer (stream-consumer.ts) whose only grant is events:PutEvents on that bus: it reads the
 * records from the stream and never touches the table. Why a function and not an EventBridge Pipe:
 * docs/design.md, Domain events.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { OUTBOX_STREAM_FILTER } from '../../functions/contracts/outbox-stream.ts';
import { PUBLISHER_COUNTS } from '../../functions/shared/metric-names.ts';
import { ROUTELESS_FUNCTIONS } from './routeless-functions.ts';
import { StreamConsumer } from './stream-consumer.ts';

export interface EventPublisherProps {
  namePrefix: string;
  table: ITable;
  bus: IEventBus;
  logRetention: RetentionDays;
}

export class EventPublisher extends StreamConsumer {
  constructor(scope: Construct, id: string, props: EventPublisherProps) {
    super(scope, id, {
      ...props,
      name: 'event-publisher',
      function: ROUTELESS_FUNCTIONS.publisher,
      filter: OUTBOX_STREAM_FILTER,
      mapping: {
        // From the oldest record the stream keeps, not LATEST: outbox records committed before the mapping
        // existed (first deployment, a replaced mapping) are published (or, past the age limit below,
        // dead-lettered) rather than skipped; a replay only repeats events, which consumers drop by EventId.
        startingPosition: StartingPosition.TRIM_HORIZON,
        // No batching window: Lambda invokes as soon as a poll (4 a second per shard) finds records, so an
        // event is typically on the bus within a second of its commit. A window would only save invocations when
        // traffic is low, where they cost next to nothing; under load batches fill up by themselves, since a
        // shard has one batch in flight at a time.
        maxBatchingWindow: Duration.seconds(0),
        // A batch goes out 10 events per PutEvents, one request after another (functions/shared/event-batches.ts),
        // so 100 records are 10 requests, a fraction of a second: a shard's backlog drains 100 events an
        // invocation, and a timed-out invocation publishes at most 100 again.
        batchSize: 100,
        // One batch per shard at a time (parallelization 1): with a larger factor Lambda keeps the order only
        // of each item's own records, and each outbox record is an item of its own (OUTBOX#<EventId>), so an
        // order's OrderCreated and OrderStatusChanged could go out in either order. docs/design.md, Domain events.
        parallelizationFactor: 1,
        // Retried until the record is an hour old (the count is the API's maximum, so that the age, not the
        // count, normally ends it): an EventBridge outage or a wrong permission fixed within the hour heals
        // by itself with nothing to replay, while an event that can never be published holds back the later
        // records of its shard for an hour at most. Then its batch goes to the dead-letter queue and the
        // alarm fires; the stream keeps the records 23 more hours, time to replay them (docs/operations.md).
        retryAttempts: 10_000,
        maxRecordAge: Duration.hours(1),
      },
      monitoring: {
        title: 'Event publisher',
        counts: PUBLISHER_COUNTS,
        counted: 'domain events put on the bus',
        onFailure:
          'The event publisher crashed, timed out or was throttled; the stream retries the batch from its first unpublished event (see its log group). A refused PutEvents is reported, not thrown: it shows as the event-publisher-late alarm.',
        onDeadLetter:
          'Events that could not be published after the retries: each message names a stream batch of outbox records. docs/operations.md, Alarms, says how to replay them.',
        late: {
          after: Duration.minutes(1),
          description:
            'Events are going out more than a minute after their commit: PutEvents keeps failing (the log group says why) or the publisher cannot keep up. The stream retries each event for an hour, then dead-letters it.',
        },
      },
    });
    this.handlerFunction.grantEvents(props.bus);
  }
}
