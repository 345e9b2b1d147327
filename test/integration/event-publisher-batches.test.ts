/**
 * The event publisher's batches on the local stack: outbox records committed to DynamoDB Local, read from its
 * stream by the real publish-events handler, which puts them on the local EventBridge (lib/local/eventbridge.ts)
 * in PutEvents of up to 10 entries. The bus refuses chosen entries as EventBridge does under throttling: the
 * refused entries alone are sent again, and one refused on every attempt stops the batch, the stream retrying
 * from its record, with no later event of its aggregate going out first.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DomainEvent, EventEnvelope } from '../../functions/shared/events.ts';
import { startLocalEventBus, type LocalEventBus } from '../../lib/local/eventbridge.ts';
import { temporaryDataDir } from '../support/data-dir.ts';
import type { TestService } from '../support/service.ts';

const BUS = 'photo-commerce-batches-test';
const dataDir = temporaryDataDir('photo-commerce-event-batches-');
let service: TestService;
let bus: LocalEventBus;
let store: typeof import('../../functions/store/transaction.ts');
let outbox: typeof import('../../functions/store/outbox-store.ts');

/** Each PutEvents request's event ids, in the order the bus was given them. */
const requests: string[][] = [];
/** The events the bus accepted, in order. */
const accepted: string[] = [];
/** How many more times the bus refuses an event, by id. */
const refusals = new Map<string, number>();

beforeAll(async () => {
  // No background polling: the test decides when the stream is read.
  service = await dataDir.start({ streamPollMs: 0 });
  bus = await startLocalEventBus({
    busName: BUS,
    eventsFile: join(dataDir.path, 'bus-events.jsonl'),
    onCall: () => requests.push([]),
    refuse: (event) => {
      requests.at(-1)?.push(event.detail.EventId as string);
      const left = refusals.get(event.detail.EventId as string) ?? 0;
      if (left === 0) return undefined;
      refusals.set(event.detail.EventId as string, left - 1);
      return { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' };
    },
  });
  bus.subscribe((event: EventEnvelope) => accepted.push(event.detail.EventId as string));
  // The handlers run in this process: the publisher puts on this bus (its client is made at its first use).
  process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = bus.endpoint;
  process.env.EVENT_BUS_NAME = BUS;
  store = await import('../../functions/store/transaction.ts');
  outbox = await import('../../functions/store/outbox-store.ts');
});
afterAll(async () => {
  await bus.close();
  await dataDir.remove();
});

let counter = 0;
/** An event about order `order` (its aggregate): events of one order must go out in their commit order. */
const orderEvent = (order: string): DomainEvent => ({
  type: 'OrderStatusChanged',
  id: `BatchTest-${order}-${++counter}`,
  time: Date.now(),
  detail: { OrderGuid: `${order}-${process.pid}`, Revision: counter },
});
async function commitAll(events: DomainEvent[]): Promise<string[]> {
  for (const event of events) expect(await store.transact([outbox.recordEvent(event)])).toEqual({ committed: true });
  requests.length = 0;
  accepted.length = 0;
  return events.map((event) => event.id);
}

it('puts a stream batch on the bus 10 entries a request, in order', async () => {
  const ids = await commitAll(Array.from({ length: 25 }, (_, n) => orderEvent(`solo${n}`)));
  await service.drainStream();
  expect(accepted).toEqual(ids);
  expect(requests.map((request) => request.length)).toEqual([10, 10, 5]);
});

it('sends a refused entry again alone, before its order’s next event', async () => {
  const [a1, b1, c1, b2] = await commitAll([orderEvent('a'), orderEvent('b'), orderEvent('c'), orderEvent('b')]);
  refusals.set(b1 as string, 1);
  await service.drainStream();
  // b2 shares its order with b1: it waits for a request of its own, after b1 is accepted.
  expect(requests).toEqual([[a1, b1, c1], [b1], [b2]]);
  expect(accepted).toEqual([a1, c1, b1, b2]);
});

it('stops at an entry refused on every attempt; the stream retries from its record, its order’s later event after it', async () => {
  const [a1, b1, c1, b2, d1] = await commitAll([
    orderEvent('a'),
    orderEvent('b'),
    orderEvent('c'),
    orderEvent('b'),
    orderEvent('d'),
  ]);
  refusals.set(b1 as string, 3); // every attempt of one invocation (ATTEMPTS)
  await service.drainStream();
  expect(accepted).toEqual([a1, c1]);
  expect(accepted).not.toContain(b2);

  await service.drainStream();
  // Retried from b1's record: c1 went out with it the first time and goes out again (consumers drop it by EventId).
  expect(accepted).toEqual([a1, c1, b1, c1, b2, d1]);
});
