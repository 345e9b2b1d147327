/**
 * The transactional outbox end to end on the local stack: an event recorded in a committed transaction is
 * published (events file) by the stream consumer, once; one in a cancelled transaction never is; a crash
 * between the commit and the publication publishes it after the restart; a failing publication is retried
 * from the failed record, with no later event overtaking it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { temporaryDataDir } from '../support/data-dir.ts';
import type { TestService } from '../support/service.ts';
import type { DomainEvent } from '../../functions/shared/events.ts';

const dataDir = temporaryDataDir('photo-commerce-outbox-');
let service: TestService;
let store: typeof import('../../functions/store/transaction.ts');
let outbox: typeof import('../../functions/store/outbox-store.ts');

beforeAll(async () => {
  // No background polling: the test decides when the stream is read.
  service = await dataDir.start({ streamPollMs: 0 });
  store = await import('../../functions/store/transaction.ts');
  outbox = await import('../../functions/store/outbox-store.ts');
});
afterAll(() => dataDir.remove());

const eventsFile = () => join(dataDir.path, 'events.jsonl');
const published = (): { id: string; 'detail-type': string }[] => {
  try {
    return readFileSync(eventsFile(), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
};
const publishedIds = () => published().map((event) => event.id);

let counter = 0;
const event = (): DomainEvent => ({
  type: 'OrderStatusChanged',
  id: `OutboxTest-${process.pid}-${++counter}`,
  time: Date.now(),
  detail: { Counter: counter },
});
const commit = (recorded: DomainEvent) => store.transact([outbox.recordEvent(recorded)]);

it('publishes the event of a committed change once, and never one of a cancelled change', async () => {
  const committed = event();
  expect(await commit(committed)).toEqual({ committed: true });
  const cancelled = event();
  // A change whose condition fails: its event is not written either.
  const missing = store.check({ PK: `OUTBOX#missing-${process.pid}`, SK: 'OUTBOX' }, { if: 'attribute_exists(PK)' });
  expect((await store.transact([outbox.recordEvent(cancelled), missing])).committed).toBe(false);
  // A repeat of a committed change fails its condition and publishes nothing more.
  expect((await commit(committed)).committed).toBe(false);
  expect(publishedIds()).not.toContain(committed.id);
  await service.drainStream();
  await service.drainStream();
  expect(publishedIds().filter((id) => id === committed.id)).toHaveLength(1);
  expect(publishedIds()).not.toContain(cancelled.id);
});

it('publishes after a restart what committed just before the crash', async () => {
  const beforeCrash = event();
  expect(await commit(beforeCrash)).toEqual({ committed: true });
  await service.close(); // the stream was not read: the event is only in the table
  expect(publishedIds()).not.toContain(beforeCrash.id);
  service = await dataDir.start({ streamPollMs: 0 });
  await service.drainStream();
  expect(publishedIds().filter((id) => id === beforeCrash.id)).toHaveLength(1);
});

it('retries a failed publication from the failed event, keeping the order', async () => {
  const first = event();
  const second = event();
  expect(await commit(first)).toEqual({ committed: true });
  expect(await commit(second)).toEqual({ committed: true });
  // Publication fails while the events file cannot be opened (its folder does not exist).
  const file = process.env.EVENTS_FILE;
  process.env.EVENTS_FILE = join(dataDir.path, 'missing-folder', 'events.jsonl');
  await service.drainStream();
  process.env.EVENTS_FILE = file;
  expect(publishedIds()).not.toContain(first.id);
  await service.drainStream();
  expect(publishedIds().filter((id) => id === first.id || id === second.id)).toEqual([first.id, second.id]);
});
