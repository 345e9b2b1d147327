/**
 * The signed-in user's library: claiming the items of a product builder URL, listing them a page at a
 * time, and deleting one (the right to erasure). Each change is a few transactions whose conditions decide
 * it; docs/design.md ("The signed-in user's library") tells how they look atomic to every reader.
 */
import { badRequest, conflict, notFound, serviceUnavailable } from '../shared/errors.ts';
import { config } from '../shared/config.ts';
import { getBuilderLink, getItem, getItems } from '../store/library-store.ts';
import { copyObject, deleteImageObject } from '../store/image-object-store.ts';
import * as userLibrary from '../store/user-library-store.ts';
import type { ClaimedItem, ClaimedLink, ErasableItem, Holds } from '../store/user-library-store.ts';
import { decideHolds } from './artwork-hold-service.ts';
import { readable } from './library-read-service.ts';
import type { LibraryPage, ReadableItem } from '../domain/library-read.ts';
import { customerObjectKeys, heldObjectKey, imageObjectKeys } from '../domain/renditions.ts';

/** The token of `{CHECKOUT_URL}/builder/<token>`, exactly as the upload answered it; a 400 for any other text. */
export function builderTokenOf(productBuilderUrl: string): string {
  const prefix = `${config.checkoutUrl}/builder/`;
  const token = productBuilderUrl.startsWith(prefix) ? productBuilderUrl.slice(prefix.length) : '';
  if (!/^[0-9a-fA-F]{32}$/.test(token)) {
    throw badRequest(
      'InvalidProductBuilderUrl',
      `ProductBuilderUrl: must be a product builder URL of this service (${prefix}<32 hexadecimal characters>).`,
    );
  }
  return token.toLowerCase();
}

/** A settled claim: the claimant's items of the link, and the items refused with the record found. */
interface SettledClaim {
  items: ClaimedItem[];
  refused: Holds['refused'];
}

/**
 * Brings the claim of `link` to its end for its claimant, as often as asked (the claimant, a repeat,
 * another user refused the link): the items become the claimant's in one transaction (while their records
 * are read side by side; those read before the hold are read again), then their listing entries appear in
 * one. Its items are the link's items that are the claimant's, in the link's order: held through this
 * link, or through another link of theirs; items another user holds and items erased since are left out.
 */
async function settleClaim(link: ClaimedLink): Promise<SettledClaim> {
  const userId = link.claimedBy;
  const [holds, records] = await Promise.all([
    userLibrary.holdItems(userId, link.token, link.itemGuids),
    getItems(link.itemGuids),
  ]);
  const found = new Map(records.map((item) => [item.itemGuid, item]));
  // Once held, an item's renditions change only together with its entry (store/rendition-store.ts), which
  // step 3 creates: a record read with this hold is what the entry must copy. One read before the hold may
  // miss renditions recorded since, so it is read again (a first claim's fourth round trip).
  const readBeforeHold = holds.held.filter(
    (itemGuid) => (found.get(itemGuid) as Partial<ClaimedItem> | undefined)?.claimToken !== link.token,
  );
  for (const item of await getItems(readBeforeHold)) found.set(item.itemGuid, item);
  const claimed = (itemGuid: string): ClaimedItem[] => {
    const item = found.get(itemGuid);
    return item ? [{ ...item, userId, claimToken: link.token }] : [];
  };
  await userLibrary.addLibraryEntries(userId, link.token, holds.held.flatMap(claimed));
  const theirs = new Set([
    ...holds.held,
    ...[...holds.refused].flatMap(([itemGuid, item]) => (item?.userId === userId ? [itemGuid] : [])),
  ]);
  return { items: link.itemGuids.filter((itemGuid) => theirs.has(itemGuid)).flatMap(claimed), refused: holds.refused };
}

/**
 * The claims through other links that hold some of the refused items (another user's, or the claimant's
 * own), settled when they do not show in their claimant's library yet (the claim died, or is under way):
 * leaving the items out, or answering them as the claimant's, is then what the libraries show. One GetItem
 * of an entry per such claim, side by side; claims that show already cost nothing more. One level deep:
 * the claims these settle do not settle others in turn.
 */
async function settleHoldingClaims(refused: Holds['refused']): Promise<void> {
  const holding = new Map<string, ClaimedItem>();
  for (const item of refused.values()) if (item?.claimToken !== undefined) holding.set(item.claimToken, item);
  await Promise.all(
    [...holding].map(async ([token, item]) => {
      if (await userLibrary.hasLibraryEntry(item.userId, item)) return;
      const link = await getBuilderLink(token);
      if (link) await settleClaim({ ...link, claimedBy: item.userId } as ClaimedLink);
    }),
  );
}

/**
 * Moves the items of a builder link into the user's library and answers them in the order the link was
 * minted: the link decides (one conditional write: nobody's, or this user's already), then settleClaim.
 * Four sequential round trips, three for a repeat. A repeat by the same user passes every condition again
 * and writes nothing new; another user gets 409, once the claim they were refused by is settled, so what
 * they were told is what the claimant's library shows.
 */
export async function claimLink(userId: string, productBuilderUrl: string): Promise<ReadableItem[]> {
  const token = builderTokenOf(productBuilderUrl);
  const link = await userLibrary.claimBuilderLink(token, userId, Date.now());
  if (link === 'missing') throw notFound('BuilderNotFound', 'No product builder link for this URL.');
  const { items, refused } = await settleClaim(link);
  await settleHoldingClaims(refused);
  if (link.claimedBy !== userId)
    throw conflict('AlreadyClaimed', 'Another user has claimed this product builder link.');
  return readable(items);
}

/** One page of the user's items, newest first (item creation time, then guid): one Query, presigning in process. */
export async function listLibrary(
  userId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<LibraryPage> {
  const { items, nextCursor } = await userLibrary.queryLibraryPage(userId, page);
  return { items: await readable(items), ...(nextCursor !== undefined ? { nextCursor } : {}) };
}

/** What an erasure did: erased at once, or scheduled for when the last hold on the item ends. */
export type ErasureOutcome = { erased: true } | { erased: false; scheduledAt: number };

/** Erasure decisions that lost a race to a hold mark before this one gives up (503, retryable). */
const ERASURE_ATTEMPTS = 5;

/**
 * Erases one of the user's items: reads its record (the user must hold it), decides on its hold marks (a
 * BatchGetItem of their checkouts, only when it has any: services/artwork-hold-service.ts), erases its
 * records in one transaction with an erasure intent naming the object (store/user-library-store.ts
 * eraseItem), then deletes the object and its renditions. Three round trips for an item never held. Held,
 * the intent waits for the holds, and the original is copied to its held key before the transaction, then
 * deleted from its library key with the renditions after it: every URL the customer was given stops
 * working, the lab reads the held copy through its order (services/artwork-service.ts), and the sweeper
 * releases the intent when the last hold ends. A crash between the steps leaves a held copy of an item
 * still there (a later erasure deletes it), or the library objects of an erased one (the released intent's
 * expiry has the sweeper delete them). A hold mark taken between the read and the commit fails the commit,
 * and the decision is made again. Should the object delete fail, the answer is an error and the intent's
 * expiry has the sweeper delete the object; the records are gone either way, so every later DELETE answers
 * 404, as for another user's item or one never claimed (docs/security.md, "Erasure").
 */
export async function deleteLibraryItem(userId: string, itemGuid: string): Promise<ErasureOutcome> {
  const notYours = () => notFound('LibraryItemNotFound', `No library item ${itemGuid}.`);
  let heldCopy = false;
  for (let attempt = 0; attempt < ERASURE_ATTEMPTS; attempt++) {
    const item = await getItem<ErasableItem>(itemGuid);
    if (item?.userId !== userId) throw notYours();
    const now = Date.now();
    const holds = [...(item.holds ?? [])];
    const decision = await decideHolds(itemGuid, holds, now);
    const deferred = decision.live.length > 0;
    // The lab's copy exists before the intent that makes its read sign it, and before the original goes.
    if (deferred && !heldCopy) {
      await copyObject(item.objectKey, heldObjectKey(item.objectKey));
      heldCopy = true;
    }
    const outcome = await userLibrary.eraseItem(userId, item, now, {
      also: decision.also,
      ...(deferred ? { deferredFor: holds } : {}),
    });
    if (outcome.committed) {
      const keys = deferred ? customerObjectKeys(item.objectKey) : imageObjectKeys(item.objectKey);
      await Promise.all(keys.map(deleteImageObject));
      return deferred ? { erased: false, scheduledAt: now } : { erased: true };
    }
    // Decide again only when a hold moved: the item is still this user's, or a hold condition failed.
    const found = outcome.failed.find((failed) => failed.index === 0);
    const holdMoved = found ? found.item?.userId === userId : outcome.failed.some((failed) => failed.index > 3);
    if (!holdMoved) throw notYours();
  }
  throw serviceUnavailable(`Item ${itemGuid} is being checked out right now; retry the erasure.`);
}
