/**
 * The one domain-event publisher. In AWS (EVENT_BUS_NAME set) events go to that EventBridge bus; locally
 * (EVENTS_FILE set) each event is appended as one JSON line in the envelope an EventBridge rule target
 * receives. With neither set, publishing fails: a function whose template forgot its bus must not drop events.
 *
 * Delivery is at least once: a retried request may publish an event again with the same `EventId`
 * (deterministic per fact), which consumers use to drop duplicates.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { eventBridge } from './clients/eventbridge.ts';
import { config } from './config.ts';
import { serviceName } from './powertools.ts';

import { AGGREGATE_FIELD, type DomainEventType } from './event-types.ts';
import { publishInOrder, type EventChannel, type Publication } from './event-batches.ts';

export type { DomainEventType };

export interface DomainEvent {
  type: DomainEventType;
  /** Stable id of the fact (the same on every re-publication); copied into `detail.EventId`. */
  id: string;
  /** Epoch ms when the fact happened. */
  time: number;
  detail: Record<string, unknown>;
  /** The API request id of the work that recorded it (shared/correlation.ts); `detail.CorrelationId` on the bus. */
  correlationId?: string;
}

/** EventBridge `source` of every event this service publishes. */
export const EVENT_SOURCE = serviceName;

/** An event as an EventBridge rule target receives it. */
export interface EventEnvelope {
  id: string;
  source: string;
  'detail-type': DomainEventType;
  time: string;
  detail: Record<string, unknown>;
}

const envelope = (event: DomainEvent): EventEnvelope => ({
  id: event.id,
  source: EVENT_SOURCE,
  'detail-type': event.type,
  time: new Date(event.time).toISOString(),
  // The correlation id is internal metadata: webhook bodies carry only what partner-forms.ts names.
  detail: {
    EventId: event.id,
    ...(event.correlationId !== undefined ? { CorrelationId: event.correlationId } : {}),
    ...event.detail,
  },
});

/** An event with its PutEvents entry, made once however often the entry is sent. */
interface BusEntry {
  event: DomainEvent;
  entry: PutEventsRequestEntry;
  /** The entry's size as EventBridge counts it against a request's 256 KiB: Time, Source, DetailType, Detail. */
  size: number;
}

const busEntry = (busName: string, event: DomainEvent): BusEntry => {
  const detail = JSON.stringify(envelope(event).detail);
  return {
    event,
    entry: {
      EventBusName: busName,
      Source: EVENT_SOURCE,
      DetailType: event.type,
      Time: new Date(event.time),
      Detail: detail,
    },
    size: 14 + Buffer.byteLength(EVENT_SOURCE) + Buffer.byteLength(event.type) + Buffer.byteLength(detail),
  };
};

/** The aggregate an event is about (an order's events share its OrderGuid); an event naming none is its own. */
const aggregateOf = ({ event }: BusEntry) => {
  const field = AGGREGATE_FIELD[event.type];
  const value = event.detail[field];
  return typeof value === 'string' ? `${field}:${value}` : `EventId:${event.id}`;
};

/** The bus as publishInOrder sends to it: one PutEvents per request, each accepted event told to the local rules. */
const busChannel: EventChannel<BusEntry> = {
  aggregateOf,
  sizeOf: ({ size }) => size,
  async send(entries) {
    const result = await eventBridge().send(new PutEventsCommand({ Entries: entries.map(({ entry }) => entry) }));
    return entries.map(({ event }, position) => {
      const answer = result.Entries?.[position];
      if (answer?.ErrorCode) return { code: answer.ErrorCode, message: answer.ErrorMessage ?? '' };
      notifyLocally(event);
      return undefined;
    });
  },
};

/** The local events file, opened once for appending: one write per batch instead of open, write and close. */
let eventsFile: { path: string; handle: Promise<FileHandle> } | undefined;

async function appendEvent(path: string, lines: string): Promise<void> {
  if (eventsFile?.path !== path) {
    const previous = eventsFile;
    eventsFile = { path, handle: open(path, 'a') };
    void previous?.handle.then((handle) => handle.close()).catch(() => {});
  }
  const opened = eventsFile;
  try {
    await (await opened.handle).write(lines);
  } catch (error) {
    // A file that could not be opened or written is opened afresh for the next event.
    if (eventsFile === opened) eventsFile = undefined;
    throw error;
  }
}

/**
 * Who receives events in process: the local stack's stand-ins for the EventBridge rules of AWS
 * (lib/local/event-delivery.ts). Empty in AWS. A subscriber takes the envelope and returns at once.
 */
const localSubscribers = new Set<(event: EventEnvelope) => void>();

/** Subscribes to every event published in this process; answers the unsubscribe. */
export function subscribeLocally(subscriber: (event: EventEnvelope) => void): () => void {
  localSubscribers.add(subscriber);
  return () => localSubscribers.delete(subscriber);
}

const notifyLocally = (event: DomainEvent) => {
  for (const subscriber of localSubscribers) subscriber(envelope(event));
};

/**
 * Publishes events in order (functions/shared/event-batches.ts: batched PutEvents, each aggregate's events in
 * order); answers how many went out and the first that did not. Throws when the local events file cannot be
 * written (nothing of the batch went out) or nothing says where to publish.
 */
export async function publishEvents(events: DomainEvent[]): Promise<Publication> {
  const busName = config.eventBusName;
  const file = config.eventsFile;
  if (events.length === 0) return { published: 0 };
  if (busName)
    return publishInOrder(
      events.map((event) => busEntry(busName, event)),
      busChannel,
    );
  if (!file) throw new Error('environment variable EVENT_BUS_NAME is not set: nowhere to publish domain events');
  await appendEvent(file, events.map((event) => `${JSON.stringify(envelope(event))}\n`).join(''));
  events.forEach(notifyLocally);
  return { published: events.length };
}

/** Publishes one event; throws when it could not be delivered. */
export async function publishEvent(event: DomainEvent): Promise<void> {
  const { failed } = await publishEvents([event]);
  if (failed)
    throw new Error(`EventBridge refused ${event.type} ${event.id}: ${failed.refusal.code} ${failed.refusal.message}`);
}
