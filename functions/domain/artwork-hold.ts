/**
 * Holds: a library item named by a checkout's artwork is held, so its erasure waits for the print. Pure:
 * the stores write the hold marks and the checkout records, the services decide with these rules.
 *
 * The item record carries one mark per checkout that named it (`<takenAt>:<checkoutId>`); the hold's state
 * is its checkout record's: held while the checkout is unpaid and unexpired, then (paid) while its order is
 * open, until `heldUntil` once the order is Cancelled (at once) or Completed (ARTWORK_HOLD_DAYS later). An
 * unpaid checkout holds for CHECKOUT_HOLD_HOURS at most: an erasure past them closes it (`brokenBy`), and an
 * erasure of an expired one does too, so a completion racing it decides on that same record, never on a clock.
 * A checkout whose artwork needs more than one transaction is first written `pending` (never payable) and
 * made payable by its last transaction, unless an erasure broke it meanwhile (`brokenBy`).
 */
import { conflict } from '../shared/errors.ts';
import type { OrderStatus } from './order.ts';

/**
 * How long a checkout may take from its first hold mark to its last transaction: far longer than any
 * function runs. A mark whose checkout record is missing within this window may belong to a checkout under
 * way; past it, the checkout never came (or its record expired).
 */
export const HOLD_PENDING_MS = 15 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Hold marks one item carries at most (46 bytes each: 46 KB of DynamoDB's 400 KB item). A basket checked
 * out again unchanged takes no new mark, so only a shopper changing the basket between checkouts of their
 * own (or an unclaimed) item approaches it; past it the item's next checkout is 409 ArtworkHoldsFull.
 */
export const MAX_HOLD_MARKS = 1000;

export interface HoldMark {
  takenAt: number;
  checkoutId: string;
}

export const holdMarkText = (mark: HoldMark): string => `${mark.takenAt}:${mark.checkoutId}`;

export const holdMarkOf = (text: string): HoldMark => {
  const [takenAt, checkoutId] = text.split(':') as [string, string];
  return { takenAt: Number(takenAt), checkoutId };
};

/** What a hold's verdict needs of its checkout record. */
export interface HoldRecord {
  expiresAt: number;
  /** When the checkout was taken (absent on tombstones). */
  createdAt?: number;
  order?: unknown;
  heldUntil?: number;
  pending?: true;
  brokenBy?: string;
}

/**
 * What a hold means to an erasure deciding now: `live` keeps the item; `dead` does not; `break` (a pending
 * checkout), `tombstone` (a checkout that may still be writing its record) and `close` (an unpaid checkout
 * expired or past its hold hours) do not either, once the erasure's own transaction has broken that
 * checkout, so it can never become payable (a completion that commits first makes that transaction fail).
 */
export type HoldVerdict = 'live' | 'dead' | 'break' | 'tombstone' | 'close';

export function holdVerdict(
  mark: HoldMark,
  record: HoldRecord | undefined,
  now: number,
  unpaidHoldMs: number,
): HoldVerdict {
  if (!record) return mark.takenAt + HOLD_PENDING_MS > now ? 'tombstone' : 'dead';
  if (record.brokenBy !== undefined) return 'dead';
  if (record.pending) return 'break';
  if (record.order !== undefined) return record.heldUntil === undefined || record.heldUntil > now ? 'live' : 'dead';
  if (unpaidHoldLive(record, mark, now, unpaidHoldMs)) return 'live';
  // Long expired, no completion can claim it (its condition reads the same expiry): nothing to close.
  return record.expiresAt + HOLD_PENDING_MS <= now ? 'dead' : 'close';
}

/** An unpaid checkout holds until it expires or its hold hours pass, whichever comes first. */
export const unpaidHoldEnd = (record: HoldRecord, mark: HoldMark, unpaidHoldMs: number): number =>
  Math.min(record.expiresAt, (record.createdAt ?? mark.takenAt) + unpaidHoldMs);

const unpaidHoldLive = (record: HoldRecord, mark: HoldMark, now: number, unpaidHoldMs: number) =>
  unpaidHoldEnd(record, mark, unpaidHoldMs) > now;

/** When an order's hold ends on moving to `status`: undefined while it stays open. */
export function holdEndFor(status: OrderStatus, now: number, holdDays: number): number | undefined {
  if (status === 'Cancelled') return now;
  if (status === 'Completed') return now + holdDays * DAY_MS;
  return undefined;
}

/** A checkout named artwork that was erased before its hold could be taken: nothing is payable. */
export const artworkErased = (itemGuids: readonly string[]) =>
  conflict(
    'ArtworkErased',
    `The artwork of this basket names library item ${itemGuids.join(', ')}, which was erased; the project must name other artwork before it can be checked out.`,
    { ItemGuids: [...itemGuids] },
  );

/** A checkout named artwork in another user's library: nothing is held, nothing written. */
export const artworkNotYours = (itemGuids: readonly string[]) =>
  conflict(
    'ArtworkNotYours',
    `The artwork of this basket names library item ${itemGuids.join(', ')}, which is in another user's library; only the buyer's own items (or unclaimed uploads) can be printed.`,
    { ItemGuids: [...itemGuids] },
  );

/** Why marks failed: `erased` when the item had no record, `notYours` when another user holds it, `full` at MAX_HOLD_MARKS. */
export interface MarkRefusals {
  erased: string[];
  notYours: string[];
  full: string[];
}

/** Sorts a failed mark by the item record it found (`found`, ALL_OLD: absent when the item is erased). */
export function markFailure(found: { userId?: unknown } | undefined, buyer: string): keyof MarkRefusals {
  if (found === undefined) return 'erased';
  return found.userId !== undefined && found.userId !== buyer ? 'notYours' : 'full';
}

const artworkHoldsFull = (itemGuids: readonly string[]) =>
  conflict(
    'ArtworkHoldsFull',
    `Library item ${itemGuids.join(', ')} is held by ${MAX_HOLD_MARKS} checkouts already; pay or let one of them expire first.`,
    { ItemGuids: [...itemGuids] },
  );

/** The refusal to answer for failed marks: another user's items first (never the buyer's to print), then erased ones. */
export function markRefusal({ erased, notYours, full }: MarkRefusals) {
  if (notYours.length > 0) return artworkNotYours([...new Set(notYours)]);
  if (erased.length > 0) return artworkErased([...new Set(erased)]);
  return artworkHoldsFull([...new Set(full)]);
}
