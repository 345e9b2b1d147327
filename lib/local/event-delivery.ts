/**
 * The EventBridge rule and SQS queue of the renditions function, in process, for `npm start` and the
 * tests: each published event the rule routes is handed to the same handler in the shape its queue gives
 * (an SQS event of one record whose body is the envelope, ApproximateReceiveCount counting deliveries),
 * delivered again after a short wait while the handler reports it failed, at most maxReceiveCount times
 * (after that AWS would move it to the dead-letter queue; here it is logged). Two messages are worked on at
 * a time, as a small reserved concurrency would.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { EventEnvelope } from '../../functions/shared/events.ts';
import { RENDITIONS_SUBSCRIPTION } from '../../functions/contracts/library-events.ts';

export type QueueHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

export interface EventDelivery {
  /** Resolves once every message delivered so far is handled (or given up). */
  drain(): Promise<void>;
  /** Stops taking events and drains. */
  close(): Promise<void>;
}

const CONCURRENCY = 2;
/** The visibility timeout's stand-in: how long a failed message waits before it is delivered again. */
const RETRY_DELAY_MS = 500;

/** The SQS event the renditions queue hands its function: one message whose body is the rule's envelope. */
export const sqsEvent = (envelope: EventEnvelope, receiveCount: number): SQSEvent => ({
  Records: [
    {
      messageId: `${envelope.id}-${receiveCount}`,
      receiptHandle: envelope.id,
      body: JSON.stringify(envelope),
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: String(Date.parse(envelope.time)),
        SenderId: 'events.amazonaws.com',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:renditions',
      awsRegion: 'local',
    },
  ],
});

/**
 * `subscribe` is where published events come from: the in-process publisher (functions/shared/events.ts)
 * when the handlers run from source, the local EventBridge (lib/local/eventbridge.ts) when they run from their assets.
 */
export function startEventDelivery(
  loadHandler: (name: string) => Promise<QueueHandler>,
  subscribe: (subscriber: (event: EventEnvelope) => void) => () => void,
): EventDelivery {
  const waiting: { envelope: EventEnvelope; receiveCount: number }[] = [];
  const inFlight = new Set<Promise<void>>();
  let running = 0;

  const deliver = async (envelope: EventEnvelope, receiveCount: number): Promise<void> => {
    const handler = await loadHandler(RENDITIONS_SUBSCRIPTION.handler);
    const failed = await handler(sqsEvent(envelope, receiveCount)).then(
      (answer) => answer.batchItemFailures.length > 0,
      (error: unknown) => {
        process.stderr.write(`renditions: ${String(error)}\n`);
        return true;
      },
    );
    if (!failed) return;
    if (receiveCount >= RENDITIONS_SUBSCRIPTION.maxReceiveCount) {
      process.stderr.write(`renditions: ${envelope.id} failed ${receiveCount} times; AWS would dead-letter it\n`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    waiting.push({ envelope, receiveCount: receiveCount + 1 });
  };

  const pump = (): void => {
    while (running < CONCURRENCY && waiting.length > 0) {
      const { envelope, receiveCount } = waiting.shift()!;
      running++;
      const work = deliver(envelope, receiveCount).finally(() => {
        running--;
        inFlight.delete(work);
        pump();
      });
      inFlight.add(work);
    }
  };

  const unsubscribe = subscribe((envelope) => {
    if (envelope['detail-type'] !== RENDITIONS_SUBSCRIPTION.detailType) return;
    waiting.push({ envelope, receiveCount: 1 });
    pump();
  });

  const drain = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };
  return {
    drain,
    async close() {
      unsubscribe();
      await drain();
    },
  };
}
