/**
 * An SQS queue and its Lambda event source mapping, in process, for `npm start` and the tests: each message
 * is handed to the queue's handler in the shape SQS gives (an SQS event of one record, ApproximateReceiveCount
 * counting deliveries), delivered again while the handler reports it failed, at most maxReceiveCount times
 * (after that AWS would move it to the dead-letter queue; here it is logged). A failed message waits the
 * visibility timeout's stand-in, and a send may be delayed (DelaySeconds). Two messages are worked on at a
 * time, as a small reserved concurrency would, unless the queue sets its own bound (its event source's
 * maxConcurrency: lib/consumer-concurrency.ts). Like SQS, a queue hands out nothing while its messages in
 * flight (received, and not deleted or visible again) reach its cap: SQS's is about 120,000 for a standard
 * queue; `LOCAL_SQS_MAX_IN_FLIGHT` sets a low one, to show what the cap does.
 *
 * The queue is durable, as SQS is (queue-store.ts): a message is stored before its sender is answered, with
 * the time it becomes visible, and deleted once handled, so the table stream's checkpoint never passes an
 * event that only memory held, and a message waiting for its retry still waits after a restart. Closing stops
 * deliveries and waits a moment for those under way; what is left, waiting or cut short, is delivered by the
 * next start, as SQS delivers a message again after its visibility timeout.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { EventEnvelope } from '../../functions/shared/events.ts';
import { queueStore, type StoredMessage } from './queue-store.ts';
import { ACCOUNT, lambdaContext } from './lambda-event.ts';

export type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface LocalQueueOptions {
  /** The queue's name: its ARN and URL end with it, and the logs name it. */
  name: string;
  /** The handler module (functions/handlers/) its event source mapping invokes. */
  handler: string;
  maxReceiveCount: number;
  /** Where its messages are kept (in DATA_DIR: a restart delivers what a crash left). */
  folder: string;
  loadHandler: (name: string) => Promise<QueueHandler>;
  /** Messages worked on at a time (its event source's maxConcurrency); DEFAULT_CONCURRENCY when unset. */
  concurrency?: number;
  /** The local SQS front its URL points at (sqs-front.ts), when its messages are sent through the SDK. */
  endpoint?: string;
  /** Messages in flight at most, beyond which nothing is handed out (SQS's in-flight quota); unbounded when unset. */
  maxInFlight?: number;
}

export interface LocalQueue {
  arn: string;
  /** The queue URL that SQS calls name (the local SQS front serves it: sqs-front.ts). */
  url: string;
  /** SendMessage: stored when this returns, delivered after `delaySeconds`. */
  send(body: string, delaySeconds?: number): void;
  /**
   * Resolves once every message sent so far is handled (or given up), retries included, except those that
   * wait longer than DRAIN_HORIZON_MS to be delivered (a webhook's retry in 5 minutes is not waited for).
   */
  drain(): Promise<void>;
  /** Stops starting deliveries; waits up to CLOSE_WAIT_MS for those under way. */
  close(): Promise<void>;
}

const DEFAULT_CONCURRENCY = 2;
/** The visibility timeout's stand-in: how long a failed message waits before it is delivered again. */
const RETRY_DELAY_MS = 500;
/** The longest wait for a message's delivery that `drain` sits out. */
const DRAIN_HORIZON_MS = 2_000;
/** How long closing waits for deliveries under way (a rendition takes about a second); `npm start` has 10 s to exit. */
const CLOSE_WAIT_MS = 3_000;
/** The URL host of a queue no SDK call reaches (its messages come from a local rule). */
const UNREACHED_QUEUE_HOST = 'http://sqs.local';

const sqsEventOf = (arn: string, message: StoredMessage<string>, receiptHandle: string): SQSEvent => ({
  Records: [
    {
      messageId: message.id,
      receiptHandle,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receives),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: arn,
      awsRegion: 'local',
    },
  ],
});

/** The SQS event the renditions queue hands its function: one message whose body is the rule's envelope. */
export const sqsEvent = (envelope: EventEnvelope, receiveCount: number): SQSEvent =>
  sqsEventOf(
    `arn:aws:sqs:local:${ACCOUNT}:renditions`,
    {
      id: `${envelope.id}-${receiveCount}`,
      body: JSON.stringify(envelope),
      sentAt: Date.parse(envelope.time),
      receives: receiveCount,
      visibleAt: 0,
    },
    envelope.id,
  );

/** A local queue's URL: on the local SQS front when SDK calls reach it, otherwise on a host nothing calls. */
export const localQueueUrl = (name: string, endpoint = UNREACHED_QUEUE_HOST) => `${endpoint}/${ACCOUNT}/${name}`;

/**
 * An EventBridge rule's stand-in: the events `subscribe` publishes whose detail-type `matches` become messages
 * of `queue` (the envelope as body), stored before the publication is answered. Answers the unsubscribe.
 */
export const ruleToQueue = (
  subscribe: (subscriber: (event: EventEnvelope) => void) => () => void,
  matches: (detailType: string) => boolean,
  queue: LocalQueue,
): (() => void) =>
  subscribe((envelope) => {
    if (matches(envelope['detail-type'])) queue.send(JSON.stringify(envelope));
  });

export function startLocalQueue(options: LocalQueueOptions): LocalQueue {
  const { name } = options;
  const arn = `arn:aws:sqs:local:${ACCOUNT}:${name}`;
  const store = queueStore<string>(options.folder);
  const waiting = store.left();
  const inFlight = new Set<Promise<void>>();
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  let running = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const deliver = async (message: StoredMessage<string>): Promise<void> => {
    const received = store.receive(message);
    const receiptHandle = `${received.id}#${received.receives}`;
    const handler = await options.loadHandler(options.handler);
    const failed = await handler(sqsEventOf(arn, received, receiptHandle), lambdaContext(options.handler)).then(
      (answer) => answer.batchItemFailures.length > 0,
      (error: unknown) => {
        process.stderr.write(`${name}: ${String(error)}\n`);
        return true;
      },
    );
    if (!failed) return store.delete(received);
    // Closed meanwhile: the message stays stored for the next start.
    if (closed) return;
    if (received.receives >= options.maxReceiveCount) {
      process.stderr.write(
        `${name}: message ${received.id} failed ${received.receives} times; AWS would dead-letter it\n`,
      );
      return store.delete(received);
    }
    waiting.push(store.hide(received, Date.now() + RETRY_DELAY_MS));
  };

  const pump = (): void => {
    clearTimeout(timer);
    if (closed) return;
    const now = Date.now();
    waiting.sort((a, b) => a.visibleAt - b.visibleAt || a.sentAt - b.sentAt);
    // In flight: being handled, or received before and not visible again yet (delayed sends are not).
    const inFlightNow = () =>
      running + waiting.filter((message) => message.receives > 0 && message.visibleAt > now).length;
    const maxInFlight = options.maxInFlight ?? Infinity;
    while (
      running < concurrency &&
      waiting.length > 0 &&
      (waiting[0] as StoredMessage<string>).visibleAt <= now &&
      inFlightNow() < maxInFlight
    ) {
      const message = waiting.shift() as StoredMessage<string>;
      running++;
      const work = deliver(message)
        .catch((error: unknown) => {
          // The message stays stored: the next start delivers it.
          process.stderr.write(`${name} queue: ${String(error)}\n`);
        })
        .finally(() => {
          running--;
          inFlight.delete(work);
          pump();
        });
      inFlight.add(work);
    }
    // At the cap, what changes it is a handled message (which pumps) or a hidden one coming back.
    const next = inFlightNow() >= maxInFlight ? waiting.find((message) => message.visibleAt > now) : waiting[0];
    if (next && running < concurrency) timer = setTimeout(pump, Math.max(0, next.visibleAt - now)).unref();
  };
  pump();

  const drain = async (): Promise<void> => {
    for (;;) {
      if (inFlight.size > 0) {
        await Promise.allSettled(inFlight);
        continue;
      }
      const next = Math.min(...waiting.map((message) => message.visibleAt));
      if (closed || next > Date.now() + DRAIN_HORIZON_MS) return;
      await new Promise((resolve) => setTimeout(resolve, Math.max(10, next - Date.now())));
    }
  };
  return {
    arn,
    url: localQueueUrl(name, options.endpoint),
    send(body, delaySeconds = 0) {
      waiting.push(store.send(body, delaySeconds * 1000));
      pump();
    },
    drain,
    async close() {
      closed = true;
      clearTimeout(timer);
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([drain(), new Promise((resolve) => (wait = setTimeout(resolve, CLOSE_WAIT_MS)))]);
      clearTimeout(wait);
    },
  };
}
