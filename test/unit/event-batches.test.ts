/**
 * The publisher's batching (functions/shared/event-batches.ts), given a send function that answers entry by
 * entry as PutEvents does: requests of at most 10 entries and 256 KiB, one event per aggregate a request,
 * refused entries alone resent, and a batch that stops at an entry refused on every attempt.
 */
import { describe, expect, it } from 'vitest';
import {
  ATTEMPTS,
  MAX_REQUEST_BYTES,
  publishInOrder,
  type EntryRefusal,
  type EventChannel,
} from '../../functions/shared/event-batches.ts';

interface TestEvent {
  id: string;
  aggregate: string;
  size?: number;
}

const THROTTLED: EntryRefusal = { code: 'ThrottlingException', message: 'Rate exceeded' };

/** A channel that records each request's ids and refuses what `refuse` says, per attempt. */
function channel(refuse: (id: string, request: number) => boolean = () => false) {
  const requests: string[][] = [];
  const accepted: string[] = [];
  const sent: EventChannel<TestEvent> = {
    aggregateOf: (event) => event.aggregate,
    sizeOf: (event) => event.size ?? 100,
    async send(events) {
      const request = requests.push(events.map((event) => event.id)) - 1;
      return events.map((event) => {
        if (refuse(event.id, request)) return THROTTLED;
        accepted.push(event.id);
        return undefined;
      });
    },
  };
  return { sent, requests, accepted };
}

const events = (...ids: string[]): TestEvent[] => ids.map((id) => ({ id, aggregate: id.replace(/\d+$/, '') }));

describe('publishInOrder', () => {
  it('sends up to 10 entries a request, in order', async () => {
    const many = Array.from({ length: 25 }, (_, n) => ({ id: `e${n}`, aggregate: `a${n}` }));
    const { sent, requests, accepted } = channel();
    expect(await publishInOrder(many, sent)).toEqual({ published: 25 });
    expect(requests.map((request) => request.length)).toEqual([10, 10, 5]);
    expect(accepted).toEqual(many.map((event) => event.id));
  });

  it('starts a new request at an aggregate’s second event and at 256 KiB', async () => {
    const { sent, requests } = channel();
    await publishInOrder(events('a1', 'b1', 'a2', 'c1'), sent);
    expect(requests).toEqual([
      ['a1', 'b1'],
      ['a2', 'c1'],
    ]);

    const big = channel();
    const half = MAX_REQUEST_BYTES / 2;
    await publishInOrder(
      [
        { id: 'x', aggregate: 'x', size: half },
        { id: 'y', aggregate: 'y', size: half },
        { id: 'z', aggregate: 'z', size: 1 },
      ],
      big.sent,
    );
    expect(big.requests).toEqual([['x', 'y'], ['z']]);
  });

  it('resends only the refused entries, before anything after them', async () => {
    const { sent, requests, accepted } = channel((id, request) => id === 'b1' && request === 0);
    expect(await publishInOrder(events('a1', 'b1', 'c1', 'b2'), sent)).toEqual({ published: 4 });
    expect(requests).toEqual([['a1', 'b1', 'c1'], ['b1'], ['b2']]);
    expect(accepted).toEqual(['a1', 'c1', 'b1', 'b2']);
  });

  it('stops at an entry refused on every attempt: its aggregate’s next event is never sent', async () => {
    const { sent, requests, accepted } = channel((id) => id === 'b1');
    const publication = await publishInOrder(events('a1', 'b1', 'c1', 'b2', 'd1'), sent);
    expect(publication).toEqual({ published: 2, failed: { index: 1, refusal: THROTTLED } });
    expect(requests).toEqual([['a1', 'b1', 'c1'], ...Array.from({ length: ATTEMPTS - 1 }, () => ['b1'])]);
    expect(accepted).toEqual(['a1', 'c1']);
  });

  it('counts a request that failed as a whole as a refusal of each of its entries', async () => {
    let calls = 0;
    const failing: EventChannel<TestEvent> = {
      aggregateOf: (event) => event.aggregate,
      sizeOf: () => 100,
      send: async (sent) => {
        calls++;
        if (calls === 1) throw new Error('socket hang up');
        return sent.map(() => undefined);
      },
    };
    expect(await publishInOrder(events('a1', 'b1'), failing)).toEqual({ published: 2 });
    expect(calls).toBe(2);
  });
});
