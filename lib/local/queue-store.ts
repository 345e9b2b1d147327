/**
 * The messages of a local queue stand-in (event-delivery.ts), one file each in a folder, kept as SQS keeps
 * a message: from its sending until its consumer deletes it. A message is on disk before its sender is
 * answered, so the hop before it (the table stream's checkpoint, the local EventBridge's answer) moves on
 * only past what the queue holds, and a crash of `npm start` loses none: the next start delivers what is
 * left. Every write is whole or absent (atomic-file.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PARTIAL_SUFFIX, writeFileAtomically } from './atomic-file.ts';

export interface StoredMessage<Body> {
  id: string;
  body: Body;
  /** Epoch ms of its sending: the order in which a restart delivers what was left. */
  sentAt: number;
  /** Deliveries begun so far (SQS's ApproximateReceiveCount): one cut short by a crash counts, as in SQS. */
  receives: number;
  /** Epoch ms before which it is not delivered (a send's delay, or ChangeMessageVisibility); stored, so a restart keeps waiting. */
  visibleAt: number;
}

export interface QueueStore<Body> {
  /** Stores a new message, visible after `delayMs`; it is on disk when this returns. */
  send(body: Body, delayMs?: number): StoredMessage<Body>;
  /** Records that a delivery of the message begins; answers the message with its new count. */
  receive(message: StoredMessage<Body>): StoredMessage<Body>;
  /** Hides the message until `visibleAt` (epoch ms). */
  hide(message: StoredMessage<Body>, visibleAt: number): StoredMessage<Body>;
  /** Forgets a message that was handled (or given up). */
  delete(message: StoredMessage<Body>): void;
  /** The messages a previous run left, oldest first. */
  left(): StoredMessage<Body>[];
}

export function queueStore<Body>(folder: string): QueueStore<Body> {
  mkdirSync(folder, { recursive: true });
  const fileOf = (id: string) => join(folder, `${id}.json`);
  const write = (message: StoredMessage<Body>) => {
    writeFileAtomically(fileOf(message.id), JSON.stringify(message));
    return message;
  };
  return {
    send: (body, delayMs = 0) => {
      const now = Date.now();
      return write({ id: randomUUID(), body, sentAt: now, receives: 0, visibleAt: now + delayMs });
    },
    receive: (message) => write({ ...message, receives: message.receives + 1 }),
    hide: (message, visibleAt) => write({ ...message, visibleAt }),
    delete: (message) => rmSync(fileOf(message.id), { force: true }),
    left() {
      const names = readdirSync(folder);
      // Writes a kill interrupted: a message's previous file is still whole, a new one's sender was never answered.
      for (const name of names.filter((name) => name.endsWith(PARTIAL_SUFFIX))) rmSync(join(folder, name));
      return (
        names
          .filter((name) => name.endsWith('.json'))
          // A message stored before messages had a visibility is visible at once.
          .map((name) => ({
            visibleAt: 0,
            ...(JSON.parse(readFileSync(join(folder, name), 'utf8')) as Omit<StoredMessage<Body>, 'visibleAt'>),
          }))
          .sort((a, b) => a.sentAt - b.sentAt || a.id.localeCompare(b.id))
      );
    },
  };
}
