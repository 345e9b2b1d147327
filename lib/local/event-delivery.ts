/**
 * The EventBridge rule and SQS queue of the renditions function, in process, for `npm start` and the
 * tests: each published event the rule routes is handed to the same handler in the shape its queue gives
 * (an SQS event of one record whose body is the envelope, ApproximateReceiveCount counting deliveries),
 * delivered again after a short wait while the handler reports it failed, at most maxReceiveCount times
 * (after that AWS would move it to the dead-letter queue; here it is logged). Two messages are worked on at
 * a time, as a small reserved concurrency would.
 *
 * The queue is durable, as SQS is (queue-store.ts): a message is stored before the publication that sent it
 * is answered, and deleted once handled, so the table stream's checkpoint never passes an event that only
 * memory held. Closing stops deliveries and waits a moment for those under way; what is left, waiting or
 * cut short, is delivered by the next start, as SQS delivers a message again after its visibility timeout.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { EventEnvelope } from '../../functions/shared/events.ts';
import { RENDITIONS_SUBSCRIPTION } from '../../functions/contracts/library-events.ts';
import { queueStore, type StoredMessage } from './queue-store.ts';
import { lambdaContext } from './lambda-event.ts';

export type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface EventDelivery {
  /** Resolves once every message delivered so far is handled (or given up). */
  drain(): Promise<void>;
  /** Stops taking events and starting deliveries; waits up to CLOSE_WAIT_MS for those under way. */
  close(): Promise<void>;
}

const CONCURRENCY = 2;
/** The visibility timeout's stand-in: how long a failed message waits before it is delivered again. */
const RETRY_DELAY_MS = 500;
/** How long closing waits for deliveries under way (a rendition takes about a second); `npm start` has 10 s to exit. */
const CLOSE_WAIT_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
 * when the handlers run from source, the local EventBridge (lib/local/eventbridge.ts) when they run from their
 * assets. `queueFolder` holds the queue's messages (in DATA_DIR: a restart delivers what a crash left).
 */
export function startEventDelivery(
  loadHandler: (name: string) => Promise<QueueHandler>,
  subscribe: (subscriber: (event: EventEnvelope) => void) => () => void,
  queueFolder: string,
): EventDelivery {
  const store = queueStore<EventEnvelope>(queueFolder);
  const waiting = store.left();
  const inFlight = new Set<Promise<void>>();
  let running = 0;
  let closed = false;

  const deliver = async (message: StoredMessage<EventEnvelope>): Promise<void> => {
    const received = store.receive(message);
    const handler = await loadHandler(RENDITIONS_SUBSCRIPTION.handler);
    const failed = await handler(
      sqsEvent(received.body, received.receives),
      lambdaContext(RENDITIONS_SUBSCRIPTION.handler),
    ).then(
      (answer) => answer.batchItemFailures.length > 0,
      (error: unknown) => {
        process.stderr.write(`renditions: ${String(error)}\n`);
        return true;
      },
    );
    if (!failed) return store.delete(received);
    // Closed meanwhile: the message stays stored for the next start.
    if (closed) return;
    if (received.receives >= RENDITIONS_SUBSCRIPTION.maxReceiveCount) {
      process.stderr.write(
        `renditions: ${received.body.id} failed ${received.receives} times; AWS would dead-letter it\n`,
      );
      return store.delete(received);
    }
    await sleep(RETRY_DELAY_MS);
    waiting.push(received);
  };

  const pump = (): void => {
    while (!closed && running < CONCURRENCY && waiting.length > 0) {
      const message = waiting.shift()!;
      running++;
      const work = deliver(message)
        .catch((error: unknown) => {
          // The message stays stored: the next start delivers it.
          process.stderr.write(`renditions queue: ${String(error)}\n`);
        })
        .finally(() => {
          running--;
          inFlight.delete(work);
          pump();
        });
      inFlight.add(work);
    }
  };

  const unsubscribe = subscribe((envelope) => {
    if (envelope['detail-type'] !== RENDITIONS_SUBSCRIPTION.detailType) return;
    waiting.push(store.send(envelope));
    pump();
  });
  pump();

  const drain = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.allSettled(inFlight);
  };
  return {
    drain,
    async close() {
      closed = true;
      unsubscribe();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([drain(), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
    },
  };
}
