/**
 * The commit of a checkout snapshot with its artwork holds (domain/artwork-hold.ts): the snapshot, its
 * `also` actions (the event, a repriced basket) and a hold mark on every item its lines' artwork names.
 *
 * Up to 100 actions it is one transaction: the marks' conditions (the item still exists) and the snapshot
 * commit together. Beyond (a 94-line basket of 200 items a line names up to 18,800 items), the snapshot is
 * created `pending` (read as missing, never payable) with the first marks, the other marks go in parallel
 * transactions of 100, and a last transaction makes the snapshot payable, on the condition that no erasure
 * broke it meanwhile. So every reader sees either no checkout or one whose every item is marked: an erasure
 * that reads a mark of a checkout not yet payable breaks that checkout in its own transaction. An item full of
 * marks has its dead ones taken off (services/hold-mark-pruning.ts) and the checkout starts over.
 */
import { artworkErased, markFailure, markRefusal, type HoldMark, type MarkRefusals } from '../domain/artwork-hold.ts';
import type { Checkout } from '../domain/checkout.ts';
import { markItemAction } from '../store/artwork-hold-store.ts';
import { pruneDeadMarks } from './hold-mark-pruning.ts';
import { checkoutOf, createCheckoutAction, finishPendingAction } from '../store/checkout-store.ts';
import { StaleBasketError } from '../store/basket-store.ts';
import { chunks } from '../store/batch.ts';
import { MAX_TRANSACTION_ACTIONS, transact, type FailedAction, type WriteAction } from '../store/transaction.ts';

type RefusedMark = { action: FailedAction; itemGuid: string };

/**
 * The refusal of failed marks (`buyer` is the checkout's user). Only items full of marks (no other refusal):
 * their dead marks are taken off, and when some were, StaleBasketError starts the checkout over.
 */
async function refuse(failed: readonly RefusedMark[], buyer: string, now: number): Promise<never> {
  const refusals: MarkRefusals = { erased: [], notYours: [], full: [] };
  for (const { action, itemGuid } of failed) refusals[markFailure(action.item, buyer)].push(itemGuid);
  if (refusals.erased.length + refusals.notYours.length === 0) {
    const full = failed.map(({ action, itemGuid }) => ({
      itemGuid,
      holds: (action.item?.holds as Set<string> | undefined) ?? new Set<string>(),
      holdRevision: Number(action.item?.holdRevision ?? 0),
    }));
    if ((await pruneDeadMarks(full, now)) > 0) throw new StaleBasketError();
  }
  throw markRefusal(refusals);
}

/**
 * Commits the checkout; 409 ArtworkNotYours naming the items in another user's library, ArtworkErased
 * naming the items erased before their marks could be taken, or ArtworkHoldsFull (nothing is payable then); StaleBasketError
 * when `also`'s basket version moved on (the caller starts over).
 */
export async function commitCheckout(checkout: Checkout, also: WriteAction[], itemGuids: string[]): Promise<void> {
  const mark: HoldMark = { takenAt: checkout.createdAt, checkoutId: checkout.checkoutId };
  const marks = itemGuids.map((itemGuid) => markItemAction(itemGuid, mark, checkout.userId));
  const own = [createCheckoutAction(checkout), ...also];
  if (own.length + marks.length <= MAX_TRANSACTION_ACTIONS) {
    const outcome = await transact([...own, ...marks]);
    if (outcome.committed) return;
    const refused = outcome.failed
      .filter((failed) => failed.index >= own.length)
      .map((action) => ({ action, itemGuid: itemGuids[action.index - own.length] as string }));
    if (refused.length > 0) await refuse(refused, checkout.userId, checkout.createdAt);
    throw new StaleBasketError();
  }
  const first = MAX_TRANSACTION_ACTIONS - 1;
  const batches = [
    { offset: 0, actions: [createCheckoutAction({ ...checkout, pending: true }), ...marks.slice(0, first)] },
    ...chunks(marks.slice(first), MAX_TRANSACTION_ACTIONS).map((actions, index) => ({
      offset: first + index * MAX_TRANSACTION_ACTIONS,
      actions,
    })),
  ];
  const outcomes = await Promise.all(batches.map((batch) => transact(batch.actions)));
  const refused = outcomes.flatMap((outcome, batch) =>
    outcome.committed
      ? []
      : outcome.failed.map((action) => {
          // The pending snapshot's creation failed: an erasure put its mark there first, naming the item.
          if (batch === 0 && action.index === 0)
            return { action: { ...action, item: undefined }, itemGuid: String(action.item?.brokenBy) };
          const offset = (batches[batch]?.offset ?? 0) - (batch === 0 ? 1 : 0);
          return { action, itemGuid: itemGuids[offset + action.index] as string };
        }),
  );
  if (refused.length > 0) await refuse(refused, checkout.userId, checkout.createdAt);
  const finish = await transact([finishPendingAction(checkout.checkoutId), ...also]);
  if (finish.committed) return;
  const broken = finish.failed.find((failed) => failed.index === 0)?.item;
  if (broken) throw artworkErased([String(checkoutOf(broken).brokenBy)]);
  throw new StaleBasketError();
}
