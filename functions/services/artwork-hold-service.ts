/**
 * Deciding on holds (domain/artwork-hold.ts): what an erasure must wait for, and the release of the
 * erasures an ended hold was the last of (the library sweeper, when DynamoDB's TTL deletes the checkout
 * record whose hold ended).
 */
import { holdMarkOf, holdVerdict } from '../domain/artwork-hold.ts';
import { getArtworks } from '../store/project-store.ts';
import {
  breakPendingAction,
  getDeferredErasures,
  getHoldRecords,
  liveHoldCheck,
  releaseErasureAction,
  tombstoneAction,
} from '../store/artwork-hold-store.ts';
import { transact, type WriteAction } from '../store/transaction.ts';

export interface HoldDecision {
  /** The live holds' checkout ids: the erasure waits for them. */
  live: string[];
  /** What the erasure's transaction must also write or check for its decision to hold. */
  also: WriteAction[];
}

/**
 * What the item's marks mean now (one BatchGetItem of their checkout records, none without marks): live holds
 * make the erasure wait, on the condition that one of them is still live when it commits (a hold that ends
 * later is released by the sweeper); without any, each checkout that may still become payable is broken in
 * the erasure's own transaction. `ended`: a checkout known to have ended (the sweeper's), whatever the clock.
 */
export async function decideHolds(
  itemGuid: string,
  marks: Iterable<string>,
  now: number,
  ended?: string,
): Promise<HoldDecision> {
  const parsed = [...marks].map(holdMarkOf).filter((mark) => mark.checkoutId !== ended);
  if (parsed.length === 0) return { live: [], also: [] };
  const records = await getHoldRecords(parsed.map((mark) => mark.checkoutId));
  const verdicts = parsed.map((mark) => ({ mark, verdict: holdVerdict(mark, records.get(mark.checkoutId), now) }));
  const live = verdicts.flatMap(({ mark, verdict }) => (verdict === 'live' ? [mark.checkoutId] : []));
  if (live.length > 0) return { live, also: [liveHoldCheck(live[0] as string, now)] };
  return {
    live,
    also: verdicts.flatMap(({ mark, verdict }) =>
      verdict === 'break'
        ? [breakPendingAction(mark.checkoutId, itemGuid)]
        : verdict === 'tombstone'
          ? [tombstoneAction(mark, itemGuid)]
          : [],
    ),
  };
}

/** A checkout whose hold ended, as its expired record names it. */
export interface EndedHold {
  checkoutId: string;
  artwork: { projectGuid: string; artworkDigest: string }[];
}

/**
 * Releases the deferred erasures of the ended hold's items that no other live hold keeps: their intents
 * expire now. Answers how many were released. A release that lost a race is done already; one whose other
 * conditions failed is thrown, so the stream hands the record over again.
 */
export async function releaseEndedHold(hold: EndedHold): Promise<number> {
  const artworks = await getArtworks(hold.artwork);
  const itemGuids = [...new Set([...artworks.values()].flatMap((artwork) => artwork.items.map((i) => i.itemGuid)))];
  const deferred = await getDeferredErasures(itemGuids);
  const released = await Promise.all(
    deferred.map(async ({ itemGuid, holds }) => {
      const now = Date.now();
      const decision = await decideHolds(itemGuid, holds, now, hold.checkoutId);
      if (decision.live.length > 0) return 0;
      const outcome = await transact([releaseErasureAction(itemGuid, now), ...decision.also]);
      if (outcome.committed) return 1;
      if (outcome.failed.some((failed) => failed.index > 0))
        throw new Error(`release of ${itemGuid} met a checkout that changed meanwhile`);
      return 0;
    }),
  );
  return released.reduce<number>((sum, one) => sum + one, 0);
}
