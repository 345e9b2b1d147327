/**
 * The open-basket quota, pure. The user's quota record lists each open basket with the expiry it had when
 * the record last heard of it: a basket's expiry only moves forward (every save extends it), so a listed
 * expiry in the future means the basket is open (deletion and completion take it off the list in their
 * own transaction). A listed expiry in the past may be stale; the creation that reclaims it proves it in
 * its transaction (a condition that the basket is gone or expired), so the quota stays exact.
 */

/** Basket guid -> the expiry (epoch ms) last recorded for it; never later than the basket's real expiry. */
export type OpenBaskets = Readonly<Record<string, number>>;

/** At most this many reclaimed baskets per creation: their conditions share the transaction with the basket and the record. */
export const MAX_RECLAIMS = 98;

/** `admit`: create, after reclaiming `reclaim` (baskets whose listed expiry has passed); `full`: 409. */
export type QuotaDecision = { admit: true; reclaim: string[] } | { admit: false };

export function decideCreation(open: OpenBaskets, quota: number, now: number): QuotaDecision {
  const listed = Object.keys(open);
  if (listed.length < quota) return { admit: true, reclaim: [] };
  const lapsed = listed.filter((guid) => (open[guid] as number) <= now);
  // Reclaim every lapsed one (up to the limit), so the next creations at the quota need no reclaim.
  if (listed.length - lapsed.length >= quota) return { admit: false };
  return { admit: true, reclaim: lapsed.slice(0, MAX_RECLAIMS) };
}
