/**
 * How the publisher puts a stream batch's events on the bus: in PutEvents requests of up to 10 entries (the
 * API's maximum, and at most 256 KiB), in stream order. PutEvents answers entry by entry, so a request can be
 * half accepted; the refused entries alone are sent again, a few times with backoff. One aggregate's events
 * stay in order: a request holds at most one event of each aggregate (a refused entry cannot be overtaken by
 * its aggregate's next event in the same request), and no request starts before the one ahead of it is wholly
 * accepted. An entry still refused stops the batch there: the caller reports its stream record as the batch's
 * failure, and the stream retries from it (what went out after it in its request goes out again, a duplicate
 * consumers drop by its EventId). Plain logic given a send function: functions/shared/events.ts sends.
 */

/** Why EventBridge refused an entry (its ErrorCode and ErrorMessage). */
export interface EntryRefusal {
  code: string;
  message: string;
}

export interface EventChannel<T> {
  /** The aggregate an event is about: its events are published in order. */
  aggregateOf(event: T): string;
  /** The entry's size as EventBridge counts it against a request's 256 KiB. */
  sizeOf(event: T): number;
  /** One PutEvents request: each entry's refusal, in the entries' order (undefined: accepted). */
  send(events: T[]): Promise<(EntryRefusal | undefined)[]>;
}

export interface Publication {
  /** Entries accepted (an event accepted on a second attempt counts once). */
  published: number;
  /** The first event not published, when the batch stopped: the stream retries from its record. */
  failed?: { index: number; refusal: EntryRefusal };
}

export const MAX_ENTRIES_PER_REQUEST = 10;
export const MAX_REQUEST_BYTES = 256 * 1024;
/** Sends of a refused entry within one invocation; then the stream's own retries take over. */
export const ATTEMPTS = 3;
/** Backoff before a resend: random in [0, BACKOFF_MS * 2^attempt), so throttled publishers spread out. */
const BACKOFF_MS = 50;

/** Where the request starting at `start` ends: at 10 entries, 256 KiB, or an aggregate's second event. */
function requestEnd<T>(events: T[], start: number, channel: EventChannel<T>): number {
  const aggregates = new Set<string>();
  let bytes = 0;
  let end = start;
  for (; end < events.length && end - start < MAX_ENTRIES_PER_REQUEST; end++) {
    const event = events[end] as T;
    const aggregate = channel.aggregateOf(event);
    const size = channel.sizeOf(event);
    if (aggregates.has(aggregate) || (end > start && bytes + size > MAX_REQUEST_BYTES)) break;
    aggregates.add(aggregate);
    bytes += size;
  }
  return end;
}

/** A whole request that failed (the SDK's own retries spent) refuses each of its entries. */
const refusedWhole = (count: number, error: unknown): EntryRefusal[] =>
  Array.from({ length: count }, () => ({ code: 'RequestFailed', message: String(error) }));

export async function publishInOrder<T>(events: T[], channel: EventChannel<T>): Promise<Publication> {
  let published = 0;
  for (let start = 0; start < events.length;) {
    const end = requestEnd(events, start, channel);
    let pending = Array.from({ length: end - start }, (_, offset) => start + offset);
    for (let attempt = 1; pending.length > 0; attempt++) {
      const answers = await channel
        .send(pending.map((index) => events[index] as T))
        .catch((error: unknown) => refusedWhole(pending.length, error));
      const refused = pending.flatMap((index, position) => {
        const refusal = answers[position];
        return refusal ? [{ index, refusal }] : [];
      });
      published += pending.length - refused.length;
      const first = refused[0];
      if (first && attempt >= ATTEMPTS) return { published, failed: first };
      if (first) await new Promise((resolve) => setTimeout(resolve, Math.random() * BACKOFF_MS * 2 ** attempt));
      pending = refused.map(({ index }) => index);
    }
    start = end;
  }
  return { published };
}
