/**
 * A quota of open things, pure: a user's open baskets, an API key's open resumable uploads. The quota
 * record lists each open thing with the expiry it had when the record last heard of it; ending a thing
 * (deleting or ordering a basket, completing or aborting an upload) takes it off the list in its own
 * transaction, so a listed expiry in the future means the thing is open. A listed expiry in the past means
 * it lapsed, unless it was extended since: a basket's expiry moves forward with every save, so the creation
 * that reclaims a lapsed basket proves it with a condition in its transaction; an upload's expiry never
 * moves, so a lapsed upload is reclaimed as it is. Either way the quota stays exact.
 */

/** Id -> the expiry (epoch ms) last recorded for it; never later than the real expiry. */
export type OpenEntries = Readonly<Record<string, number>>;

/** At most this many reclaimed entries per admission: a basket's checks share its transaction with the basket and the record. */
export const MAX_RECLAIMS = 98;

/** `admit`: open one more, after reclaiming `reclaim` (entries whose listed expiry has passed); `full`: 409. */
export type QuotaDecision = { admit: true; reclaim: string[] } | { admit: false };

export function decideCreation(open: OpenEntries, quota: number, now: number): QuotaDecision {
  const listed = Object.keys(open);
  if (listed.length < quota) return { admit: true, reclaim: [] };
  const lapsed = listed.filter((id) => (open[id] as number) <= now);
  // Reclaim every lapsed one (up to the limit), so the next admissions at the quota need no reclaim.
  if (listed.length - lapsed.length >= quota) return { admit: false };
  return { admit: true, reclaim: lapsed.slice(0, MAX_RECLAIMS) };
}
