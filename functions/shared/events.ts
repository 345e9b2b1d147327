/**
 * The one domain-event publisher. In AWS (EVENT_BUS_NAME set) events go to that EventBridge bus; locally
 * (EVENTS_FILE set) each event is appended as one JSON line in the envelope an EventBridge rule target
 * receives. With neither set, publishing fails: a function whose template forgot its bus must not drop events.
 *
 * Delivery is at least once: a retried request may publish an event again with the same `EventId`
 * (deterministic per fact), which consumers use to drop duplicates.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { eventBridge } from './clients/eventbridge.ts';
import { config } from './config.ts';
import { serviceName } from './powertools.ts';

import type { DomainEventType } from './event-types.ts';

export type { DomainEventType };

export interface DomainEvent {
  type: DomainEventType;
  /** Stable id of the fact (the same on every re-publication); copied into `detail.EventId`. */
  id: string;
  /** Epoch ms when the fact happened. */
  time: number;
  detail: Record<string, unknown>;
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
  detail: { EventId: event.id, ...event.detail },
});

async function putEvents(busName: string, event: DomainEvent): Promise<void> {
  const { detail } = envelope(event);
  const result = await eventBridge().send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: busName,
          Source: EVENT_SOURCE,
          DetailType: event.type,
          Time: new Date(event.time),
          Detail: JSON.stringify(detail),
        },
      ],
    }),
  );
  const failed = result.Entries?.find((entry) => entry.ErrorCode);
  if ((result.FailedEntryCount ?? 0) > 0)
    throw new Error(`EventBridge refused ${event.type} ${event.id}: ${failed?.ErrorCode} ${failed?.ErrorMessage}`);
}

/** The local events file, opened once for appending: one write per event instead of open, write and close. */
let eventsFile: { path: string; handle: Promise<FileHandle> } | undefined;

async function appendEvent(path: string, line: string): Promise<void> {
  if (eventsFile?.path !== path) {
    const previous = eventsFile;
    eventsFile = { path, handle: open(path, 'a') };
    void previous?.handle.then((handle) => handle.close()).catch(() => {});
  }
  const opened = eventsFile;
  try {
    await (await opened.handle).write(line);
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

/** Publishes one event; throws when it could not be delivered, so the caller's request fails and is retried. */
export async function publishEvent(event: DomainEvent): Promise<void> {
  const busName = config.eventBusName;
  const file = config.eventsFile;
  if (busName) await putEvents(busName, event);
  else if (file) await appendEvent(file, `${JSON.stringify(envelope(event))}\n`);
  else throw new Error('environment variable EVENT_BUS_NAME is not set: nowhere to publish domain events');
  for (const subscriber of localSubscribers) subscriber(envelope(event));
}
