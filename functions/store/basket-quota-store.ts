/**
 * The user's open baskets (PK=USER#<user> SK=QUOTA#BASKETS): a quota record (quota-record.ts) changed only
 * inside the transactions that create, delete or complete a basket. A basket's expiry moves forward with
 * every save, so a reclaimed basket is proved gone or expired by a condition of its own.
 */
import type { OpenEntries } from '../domain/open-quota.ts';
import { basketKey, basketQuotaKey } from './keys.ts';
import { admissionAction, readOpenEntries, releaseAction } from './quota-record.ts';
import { check, transact, type TransactionOutcome, type WriteAction } from './transaction.ts';

const QUOTA_TYPE = 'BasketQuota';

/** The open baskets as recorded; undefined when the user has no quota record yet. */
export const readOpenBaskets = (userId: string): Promise<OpenEntries | undefined> =>
  readOpenEntries(basketQuotaKey(userId));

export interface Admission {
  userId: string;
  basketGuid: string;
  expiresAt: number;
  /** The record as read: the condition holds it to that (or no record at all). */
  seen: OpenEntries | undefined;
  /** Lapsed baskets taken off the list; each is proved gone or expired by a condition of its own. */
  reclaim: readonly string[];
  /** Later expiries learnt for listed baskets (a reclaim that found the basket extended); each must still be listed. */
  corrected: Readonly<Record<string, number>>;
  quota: number;
  now: number;
}

/**
 * The actions that enter a new basket in the record, in the basket's creation transaction: the record's
 * update (its condition: fewer than `quota` after the reclaims), then a condition per reclaimed basket.
 */
export function admissionActions(admission: Admission): WriteAction[] {
  const { userId, basketGuid, reclaim, now } = admission;
  return [
    admissionAction({ ...admission, key: basketQuotaKey(userId), type: QUOTA_TYPE, id: basketGuid }),
    ...reclaim.map((guid) =>
      check(basketKey(userId, guid), { if: 'attribute_not_exists(PK) OR expiresAt <= :now', values: { ':now': now } }),
    ),
  ];
}

/**
 * Commits `actions`, which remove the basket, with its release from the record. A user whose baskets
 * predate the quota record has none to release (those baskets were never counted): the change commits
 * without it. The failed conditions reported are those of `actions`, by their own index.
 */
export async function transactReleasing(
  actions: WriteAction[],
  userId: string,
  basketGuid: string,
): Promise<TransactionOutcome> {
  const outcome = await transact([...actions, releaseAction(basketQuotaKey(userId), basketGuid)]);
  if (outcome.committed) return outcome;
  const failed = outcome.failed.filter((action) => action.index < actions.length);
  if (failed.length === 0) return transact(actions);
  return { committed: false, failed };
}
