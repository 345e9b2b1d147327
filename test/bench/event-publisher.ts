/**
 * Figure 11: how fast the event publisher empties a stream batch. The publish-events handler, given a batch of
 * 100 new outbox records as the table stream hands them (DynamoDB JSON new images), puts their events on the
 * local EventBridge (lib/local/eventbridge.ts, through the SDK, as the function does in AWS), against a bare
 * EventBridgeClient putting the same entries 10 to a PutEvents request on the same bus, side by side (ABBA
 * rounds). Beside them, the same entries one per PutEvents, one after another: a shard's rate when the
 * publisher sent one event per request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { OUTBOX_TYPE } from '../../functions/contracts/streamed-record-types.ts';
import type { DomainEvent } from '../../functions/shared/events.ts';
import { lambdaContext } from '../../lib/local/lambda-event.ts';
import { startLocalEventBus } from '../../lib/local/eventbridge.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';
import type { Figure } from './support/report.ts';
import { median, pairedRatio, sideBySide, timed } from './support/stats.ts';

const BUS = 'photo-commerce-bench-events';
const BATCH = 100;
const ROUNDS = 60;
const WARM_UP = 10;
const ONE_BY_ONE_ROUNDS = 10;
const LIMIT = 1.3;

/** A realistic batch: orders created, library commits, then status changes of the first orders. */
function batchOfEvents(round: number): DomainEvent[] {
  const time = Date.now();
  const order = (n: number) => `${round.toString(16).padStart(8, '0')}${n.toString(16).padStart(24, '0')}`;
  return [
    ...Array.from({ length: 40 }, (_, n): DomainEvent => ({
      type: 'OrderCreated',
      id: `OrderCreated-${order(n)}`,
      time,
      detail: { OrderGuid: order(n), UserId: `user-${n}`, Status: 'OrderReceived', OrderTotal: 29.99, Lines: [] },
    })),
    ...Array.from({ length: 40 }, (_, n): DomainEvent => ({
      type: 'LibraryItemsAdded',
      id: `LibraryItemsAdded-${order(n)}`,
      time,
      detail: { ApiKeyId: 'bench', AnonymousUserId: order(n), ItemGuids: [order(n + 1000)] },
    })),
    ...Array.from({ length: BATCH - 80 }, (_, n): DomainEvent => ({
      type: 'OrderStatusChanged',
      id: `OrderStatusChanged-${order(n)}-2`,
      time,
      detail: { OrderGuid: order(n), UserId: `user-${n}`, From: 'OrderReceived', To: 'Processing', Revision: 2 },
    })),
  ];
}

/** The stream event Lambda hands the publisher for these events' outbox records. */
const streamEvent = (events: DomainEvent[]): DynamoDBStreamEvent => ({
  Records: events.map((event, n): DynamoDBRecord => ({
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      SequenceNumber: String(1000 + n),
      NewImage: marshall({ PK: `OUTBOX#${event.id}`, SK: 'OUTBOX', Type: OUTBOX_TYPE, event }) as never,
    },
  })),
});

/** The entries the publisher puts, for the bare side. */
const entriesOf = (events: DomainEvent[]): PutEventsRequestEntry[] =>
  events.map((event) => ({
    EventBusName: BUS,
    Source: 'photo-commerce',
    DetailType: event.type,
    Time: new Date(event.time),
    Detail: JSON.stringify({ EventId: event.id, ...event.detail }),
  }));

export async function run(): Promise<Figure[]> {
  const folder = mkdtempSync(join(tmpdir(), 'photo-commerce-bench-events-'));
  let requests = 0;
  const bus = await startLocalEventBus({
    busName: BUS,
    eventsFile: join(folder, 'events.jsonl'),
    onCall: () => requests++,
  });
  Object.assign(process.env, {
    EVENT_BUS_NAME: BUS,
    AWS_ENDPOINT_URL_EVENTBRIDGE: bus.endpoint,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  const { handler } = await import('../../functions/handlers/publish-events.ts');
  const bare = new EventBridgeClient({
    endpoint: bus.endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  // Every round's input is made before measuring: the stream hands the function its records ready.
  const inputs = Array.from({ length: WARM_UP + ROUNDS + ONE_BY_ONE_ROUNDS }, (_, round) => batchOfEvents(round));
  const streamEvents = inputs.map(streamEvent);
  const entries = inputs.map(entriesOf);
  let publisherRound = 0;
  let bareRound = 0;
  const publisherRequests: number[] = [];
  const publisher = async () => {
    const before = requests;
    const answer = await handler(
      streamEvents[publisherRound++] as DynamoDBStreamEvent,
      lambdaContext('publish-events'),
    );
    if (answer.batchItemFailures.length > 0) throw new Error(`publisher failed: ${JSON.stringify(answer)}`);
    publisherRequests.push(requests - before);
  };
  const put = async (batch: PutEventsRequestEntry[]) => {
    const result = await bare.send(new PutEventsCommand({ Entries: batch }));
    if ((result.FailedEntryCount ?? 0) > 0) throw new Error(`bare PutEvents refused ${result.FailedEntryCount}`);
  };
  const barePutEvents = async (perRequest: number) => {
    const batch = entries[bareRound++] as PutEventsRequestEntry[];
    for (let start = 0; start < batch.length; start += perRequest) await put(batch.slice(start, start + perRequest));
  };
  try {
    await sideBySide(WARM_UP, publisher, () => barePutEvents(10));
    publisherRequests.length = 0;
    const samples = await sideBySide(
      ROUNDS,
      () => timed(publisher),
      () => timed(() => barePutEvents(10)),
    );
    const oneByOne: number[] = [];
    for (let n = 0; n < ONE_BY_ONE_ROUNDS; n++) oneByOne.push(await timed(() => barePutEvents(1)));
    const ratio = pairedRatio(samples);
    const perSecond = (ms: number) => ((BATCH * 1000) / ms).toFixed(0);
    return [
      {
        title: '11. Event publisher: events put on the bus per second',
        howToRead:
          `${ROUNDS} rounds after ${WARM_UP} to warm up, each a batch of ${BATCH} new outbox records (40 orders created, 40 library commits, then 20 status changes of the first orders) handed to the publish-events handler as the table stream hands them, which puts their events on the local EventBridge through the SDK, and a bare EventBridgeClient putting the same entries 10 to a PutEvents on the same bus, in alternating order. ` +
          'The local bus answers on loopback in a fraction of the time EventBridge takes, so the events per second here are the code’s ceiling, not a shard’s rate in AWS; the ratio is what the publisher adds (unmarshalling, validation, requests that keep one aggregate’s events apart) to the requests it cannot avoid. ' +
          `The last row sends the same entries one per PutEvents, as a publisher without batches would (${ONE_BY_ONE_ROUNDS} rounds, no budget). ` +
          `The budget: the median of the per-round ratios of times at most ${LIMIT}.`,
        columns: ['What', 'PutEvents requests per batch', `Median per batch of ${BATCH} (ms)`, 'Events per second'],
        rows: [
          [
            'publisher (publish-events)',
            String(median(publisherRequests)),
            median(samples.candidate).toFixed(1),
            perSecond(median(samples.candidate)),
          ],
          [
            'bare PutEvents, 10 entries each',
            String(BATCH / 10),
            median(samples.baseline).toFixed(1),
            perSecond(median(samples.baseline)),
          ],
          ['ratio of times (median of rounds)', '', ratio.toFixed(2), ''],
          ['bare PutEvents, 1 entry each', String(BATCH), median(oneByOne).toFixed(1), perSecond(median(oneByOne))],
        ],
        checks: [
          {
            name: 'event publisher / bare batched PutEvents (median ratio)',
            measured: ratio,
            limit: LIMIT,
            kind: 'max',
          },
        ],
      },
    ];
  } finally {
    bare.destroy();
    await bus.close();
    rmSync(folder, { recursive: true, force: true });
  }
}
