/**
 * The transactional outbox: a domain event is an outbox record written in the same TransactWriteItems as
 * the change it reports, so it exists exactly when the change committed. The table's stream carries each
 * new outbox record to the publisher (functions/handlers/publish-events.ts: a stream-fed function in AWS,
 * the local stream consumer under `npm start`), which puts it on EventBridge, at least once, with the
 * event's stable id for consumers to drop duplicates. Records expire (TTL) once publication is long over.
 */
import { OUTBOX_TYPE } from '../contracts/streamed-record-types.ts';
import type { DomainEvent } from '../shared/events.ts';
import { KEYS } from './keys.ts';
import type { TableKey } from './table.ts';
import { create, type WriteAction } from './transaction.ts';

/** Outbox records stay this long after the change (the stream keeps records 24 hours). */
const KEEP_MS = 7 * 24 * 60 * 60 * 1000;

export const outboxKey = (eventId: string): TableKey => ({ PK: `${KEYS.outbox}${eventId}`, SK: 'OUTBOX' });

/** The action that records `event` in the change's transaction; a repeat of the same event fails its condition. */
export const recordEvent = (event: DomainEvent): WriteAction =>
  create(outboxKey(event.id), OUTBOX_TYPE, { event }, event.time + KEEP_MS);
