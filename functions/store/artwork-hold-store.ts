/**
 * The actions that take, read, break and end artwork holds (domain/artwork-hold.ts). A hold mark lives on
 * the item record (`holds`, a string set, and `holdRevision`, counted up by every mark so that an erasure's
 * condition sees a mark taken after it read); the hold's state lives on the checkout record under
 * `CHECKOUT#<checkoutId>`, which a paid checkout keeps (without expiry) for as long as its order holds.
 */
import {
  HOLD_PENDING_MS,
  holdMarkText,
  MAX_HOLD_MARKS,
  type HoldMark,
  type HoldRecord,
} from '../domain/artwork-hold.ts';
import { batchGetItems } from './batch.ts';
import { checkoutKey, erasureHoldEndKey, erasureIntentKey, libraryItemKey } from './keys.ts';
import { fromItem, ttlSeconds } from './table.ts';
import { check, create, put, remove, update, type WriteAction } from './transaction.ts';

/**
 * The mark of `buyer`'s checkout on one item, while the item exists (an erased item has no record), is the
 * buyer's or nobody's (an anonymous upload no one has claimed), and carries fewer than MAX_HOLD_MARKS marks:
 * otherwise the mark fails, and its ALL_OLD item tells which (domain/artwork-hold.ts markRefusal).
 */
export const markItemAction = (itemGuid: string, mark: HoldMark, buyer: string): WriteAction =>
  update(libraryItemKey(itemGuid), 'ADD holds :mark, holdRevision :one', {
    values: { ':mark': new Set([holdMarkText(mark)]), ':one': 1 },
    condition: {
      if: 'attribute_exists(PK) AND (attribute_not_exists(userId) OR userId = :buyer) AND (attribute_not_exists(holds) OR size(holds) < :most)',
      values: { ':buyer': buyer, ':most': MAX_HOLD_MARKS },
    },
  });

/** The checkout records of these holds, by checkout id (one BatchGetItem per 100); missing ones are absent. */
export async function getHoldRecords(checkoutIds: readonly string[]): Promise<Map<string, HoldRecord>> {
  const items = await batchGetItems([...new Set(checkoutIds)].map(checkoutKey));
  return new Map(items.map((item) => [item.checkoutId as string, fromItem<HoldRecord>(item)]));
}

/** Breaks a pending checkout: its last transaction (which requires no `brokenBy`) can never make it payable. */
export const breakPendingAction = (checkoutId: string, itemGuid: string): WriteAction =>
  update(checkoutKey(checkoutId), 'SET brokenBy = :item', {
    values: { ':item': itemGuid },
    condition: { if: 'attribute_exists(pending)' },
  });

/**
 * Closes an unpaid checkout the erasure outlives (expired, or past its hold hours): its completion, which
 * requires no `brokenBy`, can never make an order of it. Fails when it was paid first: the erasure decides again.
 */
export const closeUnpaidAction = (checkoutId: string, itemGuid: string): WriteAction =>
  update(checkoutKey(checkoutId), 'SET brokenBy = :item', {
    values: { ':item': itemGuid },
    condition: { if: 'attribute_exists(PK) AND attribute_not_exists(#order)', names: { '#order': 'order' } },
  });

/**
 * Breaks a checkout that may still be writing its record: a record in its place (expiring with the window)
 * makes the checkout's own creation fail.
 */
export const tombstoneAction = (mark: HoldMark, itemGuid: string): WriteAction =>
  create(
    checkoutKey(mark.checkoutId),
    'CheckoutTombstone',
    { checkoutId: mark.checkoutId, brokenBy: itemGuid, expiresAt: mark.takenAt + HOLD_PENDING_MS },
    mark.takenAt + HOLD_PENDING_MS,
  );

/**
 * The condition that a hold is live now (its checkout unpaid, unexpired and within its hold hours, or paid
 * and its hold not ended): domain/artwork-hold.ts holdVerdict as a condition.
 */
export const liveHoldCheck = (checkoutId: string, now: number, unpaidHoldMs: number): WriteAction =>
  check(checkoutKey(checkoutId), {
    if: 'attribute_exists(PK) AND attribute_not_exists(brokenBy) AND attribute_not_exists(pending) AND ((attribute_not_exists(#order) AND expiresAt > :now AND createdAt > :since) OR (attribute_exists(#order) AND (attribute_not_exists(heldUntil) OR heldUntil > :now)))',
    names: { '#order': 'order' },
    values: { ':now': now, ':since': now - unpaidHoldMs },
  });

/** Ends a paid checkout's hold at `heldUntil`: DynamoDB's TTL then deletes it, and the sweeper releases its items. */
export const endHoldAction = (checkoutId: string, heldUntil: number): WriteAction =>
  update(checkoutKey(checkoutId), 'SET heldUntil = :until, TtlEpochSeconds = :ttl', {
    values: { ':until': heldUntil, ':ttl': ttlSeconds(heldUntil) },
    condition: { if: 'attribute_exists(PK)' },
  });

/** An erased item's intent: with the marks it waits for while its erasure is deferred. */
export interface ErasureIntent {
  itemGuid: string;
  holds?: string[];
  /**
   * Its original was copied to its held key for the lab. Absent on deferred erasures that left the original
   * at its library key (those written before held copies were made), which the lab's reads sign there.
   */
  heldCopy?: true;
}

/** The erasure intents among these items (one BatchGetItem per 100): the items erased, or waiting to be. */
export async function getErasureIntents(itemGuids: readonly string[]): Promise<ErasureIntent[]> {
  const items = await batchGetItems(itemGuids.map(erasureIntentKey));
  return items.map((item) => ({
    itemGuid: item.itemGuid as string,
    ...(Array.isArray(item.holds) ? { holds: item.holds as string[] } : {}),
    ...(item.heldCopy === true ? { heldCopy: true as const } : {}),
  }));
}

/**
 * When the unpaid holds a deferred erasure waits for have all ended, each at its expiry or CHECKOUT_HOLD_HOURS
 * after it: this record's expiry hands the erasure to the sweeper then, which closes those checkouts and
 * releases it unless a paid hold is still live (a checkout's own expiry may come weeks later).
 */
export const holdEndAction = (itemGuid: string, endsAt: number): WriteAction =>
  put(erasureHoldEndKey(itemGuid), 'ErasureHoldEnd', { itemGuid, endsAt }, { expiresAt: endsAt });

/**
 * Releases a deferred erasure: its intent expires now, so the sweeper deletes the object and its renditions
 * when DynamoDB's TTL deletes the intent, as for any erasure; its hold end record goes. Fails (nothing
 * written) when released already.
 */
export const releaseErasureActions = (itemGuid: string, now: number): WriteAction[] => [
  update(erasureIntentKey(itemGuid), 'SET TtlEpochSeconds = :ttl REMOVE holds', {
    values: { ':ttl': ttlSeconds(now) },
    condition: { if: 'attribute_exists(holds)' },
  }),
  remove(erasureHoldEndKey(itemGuid)),
];

/**
 * Takes dead marks off an item (their checkouts ended: domain/artwork-hold.ts holdVerdict `dead`), on the
 * condition that no mark was taken since they were judged (`holdRevision`, counted up by every mark).
 */
export const removeDeadMarksAction = (itemGuid: string, dead: readonly string[], holdRevision: number): WriteAction =>
  update(libraryItemKey(itemGuid), 'DELETE holds :dead', {
    values: { ':dead': new Set(dead) },
    condition: { if: 'holdRevision = :revision', values: { ':revision': holdRevision } },
  });
