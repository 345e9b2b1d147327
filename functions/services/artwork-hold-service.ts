/**
 * Deciding on holds (domain/artwork-hold.ts): what an erasure must wait for, and the release of the
 * erasures an ended hold was the last of (the library sweeper, when DynamoDB's TTL deletes the checkout
 * record whose hold ended, or the record of the end of the unpaid holds an erasure waits for).
 */
import { holdMarkOf, holdVerdict, unpaidHoldEnd, type HoldMark, type HoldVerdict } from '../domain/artwork-hold.ts';
import { config } from '../shared/config.ts';
import { getArtworks } from '../store/project-store.ts';
import {
  breakPendingAction,
  closeUnpaidAction,
  getErasureIntents,
  getHoldRecords,
  holdEndAction,
  liveHoldCheck,
  releaseErasureActions,
  tombstoneAction,
} from '../store/artwork-hold-store.ts';
import { chunks } from '../store/batch.ts';
import { MAX_TRANSACTION_ACTIONS, transact, type WriteAction } from '../store/transaction.ts';

const HOUR_MS = 60 * 60 * 1000;

export interface HoldDecision {
  /** The live holds' checkout ids: the erasure waits for them. */
  live: string[];
  /** What the erasure's transaction must also write or check for its decision to hold. */
  also: WriteAction[];
}

/**
 * What the item's marks mean now (one BatchGetItem of their checkout records, none without marks): live holds
 * make the erasure wait, on the condition that one of them is still live when it commits (a hold that ends
 * later is released by the sweeper: a paid one when its checkout record expires, unpaid ones when the record
 * of their end, written with the erasure, does); without any, each checkout that may still become payable is
 * broken in the erasure's own transaction. `ended`: a checkout known to have ended (the sweeper's), whatever
 * the clock.
 */
export async function decideHolds(
  itemGuid: string,
  marks: readonly string[],
  now: number,
  ended?: string,
): Promise<HoldDecision> {
  const parsed = [...marks].map(holdMarkOf).filter((mark) => mark.checkoutId !== ended);
  if (parsed.length === 0) return { live: [], also: [] };
  const records = await getHoldRecords(parsed.map((mark) => mark.checkoutId));
  const unpaidHoldMs = config.checkoutHoldHours * HOUR_MS;
  const verdicts = parsed.map((mark) => ({
    mark,
    verdict: holdVerdict(mark, records.get(mark.checkoutId), now, unpaidHoldMs),
  }));
  const live = verdicts.flatMap(({ mark, verdict }) => (verdict === 'live' ? [mark.checkoutId] : []));
  if (live.length > 0) {
    const unpaidEnds = verdicts.flatMap(({ mark, verdict }) => {
      const record = records.get(mark.checkoutId);
      return record && verdict === 'live' && record.order === undefined
        ? [unpaidHoldEnd(record, mark, unpaidHoldMs)]
        : [];
    });
    const also = [liveHoldCheck(live[0] as string, now, unpaidHoldMs)];
    if (unpaidEnds.length > 0) also.push(holdEndAction(itemGuid, Math.max(...unpaidEnds)));
    return { live, also };
  }
  const closing = verdicts.filter(({ verdict }) => verdict === 'close');
  if (closing.length > 0) {
    // Closed first, apart from the erasure's transaction (their number is the item's, up to MAX_HOLD_MARKS): a
    // closed checkout stays closed, so the erasure after them is safe; one paid meanwhile is live: decide again.
    const outcomes = await Promise.all(
      chunks(closing, MAX_TRANSACTION_ACTIONS).map((batch) =>
        transact(batch.map(({ mark }) => closeUnpaidAction(mark.checkoutId, itemGuid))),
      ),
    );
    if (outcomes.some((outcome) => !outcome.committed))
      return decideHolds(itemGuid, marks, Math.max(now, Date.now()), ended);
  }
  return { live, also: verdicts.flatMap(({ mark, verdict }) => breakingActions[verdict](mark, itemGuid)) };
}

/** What an erasure's transaction writes for each verdict, so that a checkout it outlives can never be paid. */
const breakingActions: Record<HoldVerdict, (mark: HoldMark, itemGuid: string) => WriteAction[]> = {
  live: () => [],
  dead: () => [],
  close: () => [],
  break: (mark, itemGuid) => [breakPendingAction(mark.checkoutId, itemGuid)],
  tombstone: (mark, itemGuid) => [tombstoneAction(mark, itemGuid)],
};

/** A checkout whose hold ended, as its expired record names it. */
export interface EndedHold {
  checkoutId: string;
  artwork: { projectGuid: string; artworkDigest: string }[];
}

/** The end of the unpaid holds a deferred erasure waited for, as its expired record names it. */
export interface UnpaidHoldsEnd {
  itemGuid: string;
  endsAt: number;
}

/**
 * Releases the deferred erasures of the ended hold's items that no other live hold keeps: their intents
 * expire now. Answers how many were released.
 */
export async function releaseEndedHold(hold: EndedHold): Promise<number> {
  const artworks = await getArtworks(hold.artwork);
  const itemGuids = [...new Set([...artworks.values()].flatMap((artwork) => artwork.items.map((i) => i.itemGuid)))];
  return releaseDeferred(itemGuids, 0, hold.checkoutId);
}

/**
 * Releases the deferred erasure whose unpaid holds have ended, closing those checkouts, unless a paid hold
 * keeps it. Decided at `endsAt` at the earliest: the record's expiry shows the clock has passed it.
 */
export const releaseAtUnpaidHoldsEnd = (end: UnpaidHoldsEnd): Promise<number> =>
  releaseDeferred([end.itemGuid], end.endsAt);

/**
 * Releases the deferred erasures among `itemGuids` that no live hold keeps, deciding at `notBefore` or
 * later. A release that lost a race is done already; one whose other conditions failed is thrown, so the
 * stream hands the record over again.
 */
async function releaseDeferred(itemGuids: readonly string[], notBefore: number, ended?: string): Promise<number> {
  const intents = await getErasureIntents(itemGuids);
  const released = await Promise.all(
    intents.map(async ({ itemGuid, holds }) => {
      if (holds === undefined) return 0;
      const now = Math.max(notBefore, Date.now());
      const decision = await decideHolds(itemGuid, holds, now, ended);
      if (decision.live.length > 0) return 0;
      const release = releaseErasureActions(itemGuid, now);
      const outcome = await transact([...release, ...decision.also]);
      if (outcome.committed) return 1;
      if (outcome.failed.some((failed) => failed.index >= release.length))
        throw new Error(`release of ${itemGuid} met a checkout that changed meanwhile`);
      return 0;
    }),
  );
  return released.reduce<number>((sum, one) => sum + one, 0);
}
