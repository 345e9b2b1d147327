/**
 * The signed-in user's library: claiming the items of a product builder URL, listing them a page at a
 * time, and deleting one (the right to erasure). No transactions: every step is a conditional write that
 * decides, or a put or delete that is safe to repeat, ordered so that a retry by the same user finishes
 * what a request that died half way left (docs/security.md, "Erasure").
 */
import { badRequest, conflict, notFound } from '../shared/errors.ts';
import { config } from '../shared/config.ts';
import { settleBounded } from '../shared/settle-bounded.ts';
import { deleteItem } from '../store/library-store.ts';
import { deleteImageObject } from '../store/image-object-store.ts';
import * as userLibrary from '../store/user-library-store.ts';
import { readable } from './library-read-service.ts';
import type { LibraryPage, ReadableItem } from '../domain/library-read.ts';
import { renditionObjectKeys } from '../domain/renditions.ts';

/** Items claimed side by side (a link names at most LIBRARY_MAX_ITEMS or MAX_BUILDER_ITEMS items). */
const CLAIM_CONCURRENCY = 10;

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

/**
 * Moves the items of a builder link into the user's library and answers them in the order the link was
 * minted. The link decides (one conditional write: nobody's, or this user's already), then each item
 * (a conditional write each: nobody's, or this user's already), then the references and the entries are
 * put. A retry by the same user passes every condition again and finishes a half-done claim; another
 * user gets 409. Items the link names that another user holds (claimed through another link, e.g. one
 * minted by POST /library/builder over several uploads) stay theirs and are left out, as are items
 * deleted since.
 */
export async function claimLink(userId: string, productBuilderUrl: string): Promise<ReadableItem[]> {
  const token = builderTokenOf(productBuilderUrl);
  const link = await userLibrary.claimBuilderLink(token, userId, Date.now());
  if (link === 'missing') throw notFound('BuilderNotFound', 'No product builder link for this URL.');
  if (link === 'taken') throw conflict('AlreadyClaimed', 'Another user has claimed this product builder link.');
  const { settled } = await settleBounded(
    link.itemGuids.map((itemGuid, index) => ({ itemGuid, index })),
    { concurrency: CLAIM_CONCURRENCY, maxItems: link.itemGuids.length, tooMany: () => new Error('unreachable') },
    ({ itemGuid }) => userLibrary.claimItem(itemGuid, userId),
  );
  const failed = settled.find((entry) => entry.outcome.status === 'rejected');
  if (failed) throw (failed.outcome as PromiseRejectedResult).reason;
  const items = settled.flatMap((entry) =>
    entry.outcome.status === 'fulfilled' && entry.outcome.value ? [entry.outcome.value] : [],
  );
  // References first: an item listed is always deletable (DELETE finds it by its reference).
  await userLibrary.putLibraryRefs(userId, items);
  await userLibrary.putLibraryEntries(userId, items);
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

/**
 * Erases one of the user's items: the item record first (reads and builder links stop showing it, and no
 * claim can take it again), then the object and its renditions, then the listing entry, and the reference last, so until
 * everything is gone the item stays findable and a repeated DELETE finishes the job. Once the reference is
 * gone the item is not the user's any more: 404, as for another user's item or one never claimed.
 */
export async function deleteLibraryItem(userId: string, itemGuid: string): Promise<void> {
  const ref = await userLibrary.getLibraryRef(userId, itemGuid);
  if (!ref) throw notFound('LibraryItemNotFound', `No library item ${itemGuid}.`);
  await deleteItem(itemGuid);
  await Promise.all([ref.objectKey, ...renditionObjectKeys(ref.objectKey)].map(deleteImageObject));
  await userLibrary.deleteLibraryEntry(userId, ref.entrySortKey);
  await userLibrary.deleteLibraryRef(userId, itemGuid);
}
