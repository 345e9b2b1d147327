/**
 * The user's quota record (PK=USER#<user> SK=QUOTA#BASKETS): `open`, a map of the user's open baskets to
 * their last recorded expiry (domain/basket-quota.ts). It changes only inside the transactions that
 * create, delete or complete a basket, so the number of open baskets can never pass the quota, whatever
 * runs at the same time: the creation's condition is the size of the map.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import type { OpenBaskets } from '../domain/basket-quota.ts';
import { basketKey, basketQuotaKey } from './keys.ts';
import { check, put, transact, update, type TransactionOutcome, type WriteAction } from './transaction.ts';

const QUOTA_TYPE = 'BasketQuota';

/** The open baskets as recorded; undefined when the user has no quota record yet. */
export async function readOpenBaskets(userId: string): Promise<OpenBaskets | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: basketQuotaKey(userId), ConsistentRead: true }),
  );
  return openBasketsOf(result.Item);
}

/** The `open` map of a quota record item (e.g. a failed condition's ALL_OLD item). */
export const openBasketsOf = (item: Record<string, unknown> | undefined): OpenBaskets | undefined =>
  item ? ((item.open as OpenBaskets | undefined) ?? {}) : undefined;

export interface Admission {
  userId: string;
  basketGuid: string;
  expiresAt: number;
  /** The record as read: the condition holds it to that (or no record at all). */
  seen: OpenBaskets | undefined;
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
  const { userId, basketGuid, expiresAt, seen, reclaim, corrected, quota, now } = admission;
  const key = basketQuotaKey(userId);
  if (seen === undefined)
    return [
      put(key, QUOTA_TYPE, { open: { [basketGuid]: expiresAt } }, { condition: { if: 'attribute_not_exists(PK)' } }),
    ];
  const names: Record<string, string> = { '#open': 'open', '#new': basketGuid };
  const values: Record<string, unknown> = { ':expiresAt': expiresAt, ':limit': quota + reclaim.length };
  const sets = ['#open.#new = :expiresAt'];
  Object.entries(corrected).forEach(([guid, expiry], index) => {
    names[`#c${index}`] = guid;
    values[`:c${index}`] = expiry;
    sets.push(`#open.#c${index} = :c${index}`);
  });
  reclaim.forEach((guid, index) => (names[`#r${index}`] = guid));
  const removed = reclaim.map((_, index) => `#open.#r${index}`);
  const stillListed = [
    ...Object.keys(corrected).map((_, index) => `#c${index}`),
    ...reclaim.map((_, index) => `#r${index}`),
  ]
    .map((name) => ` AND attribute_exists(#open.${name})`)
    .join('');
  return [
    update(key, `SET ${sets.join(', ')}${removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : ''}`, {
      names,
      condition: { if: `size(#open) < :limit${stillListed}`, values },
    }),
    ...reclaim.map((guid) =>
      check(basketKey(userId, guid), { if: 'attribute_not_exists(PK) OR expiresAt <= :now', values: { ':now': now } }),
    ),
  ];
}

/** Takes the basket off the record: in the transaction that deletes or completes it. */
const releaseAction = (userId: string, basketGuid: string): WriteAction =>
  update(basketQuotaKey(userId), 'REMOVE #open.#basket', {
    names: { '#basket': basketGuid },
    condition: { if: 'attribute_exists(#open)', names: { '#open': 'open' } },
  });

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
  const outcome = await transact([...actions, releaseAction(userId, basketGuid)]);
  if (outcome.committed) return outcome;
  const failed = outcome.failed.filter((action) => action.index < actions.length);
  if (failed.length === 0) return transact(actions);
  return { committed: false, failed };
}
