/**
 * An item at MAX_HOLD_MARKS takes no more marks, so its next checkout takes the dead ones off first: marks
 * whose checkouts ended (expired long ago, broken, or paid with their hold over). Only `dead` ones: a mark an
 * erasure would still have to close or break stays, so no erasure can miss a checkout that may be paid.
 */
import { holdMarkOf, holdVerdict } from '../domain/artwork-hold.ts';
import { config } from '../shared/config.ts';
import { getHoldRecords, removeDeadMarksAction } from '../store/artwork-hold-store.ts';
import { transact } from '../store/transaction.ts';

const HOUR_MS = 60 * 60 * 1000;

/** An item record as a failed mark found it (ALL_OLD). */
export interface MarkedItem {
  itemGuid: string;
  holds: ReadonlySet<string>;
  holdRevision: number;
}

/** Takes the dead marks off these items; answers how many items lost some (0: none were dead, or all changed meanwhile). */
export async function pruneDeadMarks(items: readonly MarkedItem[], now: number): Promise<number> {
  const records = await getHoldRecords(
    items.flatMap((item) => [...item.holds].map((text) => holdMarkOf(text).checkoutId)),
  );
  const unpaidHoldMs = config.checkoutHoldHours * HOUR_MS;
  const isDead = (text: string) => {
    const mark = holdMarkOf(text);
    return holdVerdict(mark, records.get(mark.checkoutId), now, unpaidHoldMs) === 'dead';
  };
  const outcomes = await Promise.all(
    items.map(async (item) => {
      const dead = [...item.holds].filter(isDead);
      if (dead.length === 0) return false;
      return (await transact([removeDeadMarksAction(item.itemGuid, dead, item.holdRevision)])).committed;
    }),
  );
  return outcomes.filter(Boolean).length;
}
