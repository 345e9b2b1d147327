/**
 * Following an artwork DownloadLink (GET /order/{orderGuid}/artwork/{itemGuid}): the link checked (signature,
 * expiry), then one BatchGetItem decides whether the original may still be had: the owner pointer (a
 * cancelled order's links are dead; so are the erased items' once the order's hold ended) and the item's
 * record (present: not erased, and it names the original). Answers a fresh presigned GET, signed as the
 * artwork read signs it. A held item erased meanwhile has no record: its order line's artwork record names
 * it and its erasure intent says where its original is, as for the artwork read (two more GetItems, side by
 * side, on that path only).
 */
import { forbiddenLink, gone } from '../shared/errors.ts';
import { artworkItemOf, type ArtworkItem } from '../domain/artwork.ts';
import { linkOf, type ArtworkLink } from '../domain/artwork-link.ts';
import { getLinkedArtwork, type OwnerPointer } from '../store/order-store.ts';
import { getArtworks } from '../store/project-store.ts';
import { checkLink } from './artwork-links.ts';
import { heldCopies, presignOriginalsAt } from './artwork-service.ts';

const erased = (itemGuid: string) =>
  gone('ArtworkErased', `Library item ${itemGuid} was erased and the order's hold on it has ended.`);

/** The presigned GET the link `sent` leads to, or why it leads nowhere (403, 410). */
export async function followLink(
  sent: Parameters<typeof linkOf>[0] & { signature?: string | undefined },
  now = Date.now(),
): Promise<string> {
  const link = linkOf(sent);
  if (!link || sent.signature === undefined) throw forbiddenLink();
  await checkLink(link, sent.signature, now);
  const { pointer, item } = await getLinkedArtwork(link.orderGuid, link.itemGuid);
  // A link the service signed names an order that exists: orders are never deleted.
  if (!pointer) throw gone('OrderNotFound', `No order ${link.orderGuid}.`);
  if (pointer.cancelled)
    throw gone('OrderCancelled', `Order ${link.orderGuid} is Cancelled: its artwork links are dead.`);
  // An item with its record is not erased (its original at the library key); one without is held for the lab.
  if (item) return (await presignOriginalsAt([artworkItemOf(item)], new Set()))[0] as string;
  const [held, copies] = await Promise.all([heldItem(pointer, link, now), heldCopies([link.itemGuid])]);
  const [url] = await presignOriginalsAt([held], copies);
  return url as string;
}

/** An item erased while the order holds it: kept for the lab until the order's hold ends. */
async function heldItem(pointer: OwnerPointer, link: ArtworkLink, now: number): Promise<ArtworkItem> {
  if (pointer.heldUntil !== undefined && pointer.heldUntil <= now) throw erased(link.itemGuid);
  const line = pointer.artworkLines.find((candidate) => candidate.id === link.line);
  if (line?.artworkDigest === undefined) throw erased(link.itemGuid);
  const reference = { projectGuid: line.projectGuid, artworkDigest: line.artworkDigest };
  const artwork = (await getArtworks([reference])).get(`${line.projectGuid}#${line.artworkDigest}`);
  const found = artwork?.items.find((candidate) => candidate.itemGuid === link.itemGuid);
  if (!found) throw erased(link.itemGuid);
  return found;
}
