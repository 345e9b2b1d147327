/**
 * EventBridge's PutEvents, locally, for functions run from their synthesized assets (which publish to the
 * bus their template names, through the SDK): each entry becomes the envelope a rule target receives,
 * appended to the events file (as the source-mode publisher writes it) and handed to the local rules'
 * subscribers (the renditions queue's stand-in). Entries for another bus fail as EventBridge fails them, and
 * a test may have it refuse chosen entries (`refuse`), as EventBridge refuses some entries of a request when
 * throttled or failing internally, answering the others. A trace header out of EventBridge's bounds fails the request.
 */
import { appendFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '../../functions/shared/events.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION, type ServiceCall } from './aws-call-log.ts';
import { AwsJsonError, signerOf, startAwsJsonFront } from './aws-json-front.ts';

export interface LocalEventBus {
  /** The endpoint functions reach it at (AWS_ENDPOINT_URL_EVENTBRIDGE). */
  endpoint: string;
  /** Calls `subscriber` with each event put on the bus; answers the unsubscribe. */
  subscribe: (subscriber: (event: EventEnvelope) => void) => () => void;
  close(): Promise<void>;
}

export interface LocalEventBusOptions {
  busName: string;
  eventsFile: string;
  /** Told of every PutEvents call, by the access key that signed it (the IAM check's record). */
  onCall?: (call: ServiceCall) => void;
  /** Refuses an entry with the answered error (e.g. ThrottlingException) instead of accepting it. */
  refuse?: (event: EventEnvelope) => { ErrorCode: string; ErrorMessage: string } | undefined;
}

interface PutEventsEntry {
  EventBusName?: string;
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Time?: number | string;
  /** The X-Ray trace the event carries on (functions/shared/tracing.ts); EventBridge takes 1 to 500 characters. */
  TraceHeader?: string;
}

/** The SDK sends Time as epoch seconds (JSON protocol timestamps). */
const isoTime = (time: PutEventsEntry['Time']) =>
  new Date(typeof time === 'number' ? time * 1000 : time === undefined ? Date.now() : Date.parse(time)).toISOString();

export async function startLocalEventBus(options: LocalEventBusOptions): Promise<LocalEventBus> {
  const subscribers = new Set<(event: EventEnvelope) => void>();
  const busArn = `arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT}:event-bus/${options.busName}`;

  const putEvents = async (entries: PutEventsEntry[]) => {
    const answers: Record<string, string>[] = [];
    const accepted: EventEnvelope[] = [];
    for (const entry of entries) {
      if (entry.EventBusName !== options.busName && entry.EventBusName !== busArn) {
        answers.push({
          ErrorCode: 'NotFoundException',
          ErrorMessage: `Event bus ${entry.EventBusName} does not exist.`,
        });
        continue;
      }
      const event: EventEnvelope = {
        id: randomUUID(),
        source: String(entry.Source),
        'detail-type': entry.DetailType as EventEnvelope['detail-type'],
        time: isoTime(entry.Time),
        detail: JSON.parse(entry.Detail ?? '{}') as Record<string, unknown>,
      };
      const refusal = options.refuse?.(event);
      if (refusal) {
        answers.push(refusal);
        continue;
      }
      accepted.push(event);
      answers.push({ EventId: event.id });
    }
    if (accepted.length > 0)
      await appendFile(options.eventsFile, accepted.map((event) => `${JSON.stringify(event)}\n`).join(''));
    for (const event of accepted) for (const subscriber of subscribers) subscriber(event);
    return { FailedEntryCount: entries.length - accepted.length, Entries: answers };
  };

  const front = await startAwsJsonFront('AWSEvents.', {
    PutEvents: (input: { Entries: PutEventsEntry[] }, request) => {
      options.onCall?.({
        accessKeyId: signerOf(request),
        action: 'events:PutEvents',
        resource: busArn,
        via: 'PutEvents',
      });
      if (input.Entries.some(({ TraceHeader }) => TraceHeader !== undefined && !/^.{1,500}$/s.test(TraceHeader)))
        throw new AwsJsonError('ValidationException', 'TraceHeader must be 1 to 500 characters.');
      return putEvents(input.Entries);
    },
  });

  return {
    endpoint: front.endpoint,
    subscribe(subscriber) {
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },
    close: front.close,
  };
}
