/**
 * The lab's read of an order's artwork (GET /order/{orderGuid}/artwork): the originals of every item each
 * line's project version printed when the order was paid, with presigned GETs. Three sequential round trips
 * whatever the order: the owner pointer (one GetItem: the lines and their artwork references), the page's
 * artwork records (one BatchGetItem; each holds what the lab needs of its items), then the erasure intents
 * of their items (one BatchGetItem per 100: where each original is), signed in process.
 * Each item also carries its DownloadLink (services/artwork-link-service.ts), signed with the day's key.
 */
import { badRequest, conflict, notFound } from '../shared/errors.ts';
import { config } from '../shared/config.ts';
import { artworkPage, type ArtworkItem } from '../domain/artwork.ts';
import type { ArtworkLine, OrderArtworkPage } from '../domain/order.ts';
import { getOrderArtworkLines } from '../store/order-store.ts';
import { getArtworks } from '../store/project-store.ts';
import { presignDownloads } from '../store/image-object-store.ts';
import { issueLinks } from './artwork-links.ts';
import { getErasureIntents } from '../store/artwork-hold-store.ts';
import { heldObjectKey } from '../domain/renditions.ts';

const invalidCursor = () =>
  badRequest('InvalidCursor', 'cursor: not a cursor this listing handed out; start again without it.');

/** The line index a cursor names: the decimal index of the page's first line, within the order's lines. */
function startOf(cursor: string | undefined, lineCount: number): number {
  if (cursor === undefined) return 0;
  const start = /^[1-9]\d{0,2}$/.test(cursor) ? Number(cursor) : NaN;
  if (!(start < lineCount)) throw invalidCursor();
  return start;
}

/**
 * Presigned GETs (DOWNLOAD_URL_SECONDS) of artwork originals, in order, each where it is: at its library key,
 * or at its held key when its item is in `held` (its erasure asked for while a hold defers it:
 * services/user-library-service.ts keeps it there for the lab). The one place the lab's downloads are signed,
 * whether it reads the order's artwork or follows an item's DownloadLink.
 */
export const presignOriginalsAt = (items: readonly ArtworkItem[], held: ReadonlySet<string>): Promise<string[]> =>
  presignDownloads(
    items.map(({ itemGuid, objectKey, mimeType }) => ({
      objectKey: held.has(itemGuid) ? heldObjectKey(objectKey) : objectKey,
      contentType: mimeType,
      disposition: 'attachment' as const,
    })),
    config.downloadUrlSeconds,
  );

/** The items among these whose original is at its held key: their erasure intents say so. */
export async function heldCopies(itemGuids: readonly string[]): Promise<Set<string>> {
  const intents = await getErasureIntents(itemGuids);
  return new Set(intents.filter((intent) => intent.heldCopy).map((intent) => intent.itemGuid));
}

/** presignOriginalsAt, the items' erasure intents read to know which are held. */
async function presignOriginals(items: readonly ArtworkItem[]): Promise<string[]> {
  return presignOriginalsAt(items, await heldCopies(items.map((item) => item.itemGuid)));
}

/** `apiBaseUrl`: where this request reached the API; the items' DownloadLinks are absolute URLs on it. */
export async function readOrderArtwork(
  orderGuid: string,
  apiBaseUrl: string,
  cursor?: string,
): Promise<OrderArtworkPage> {
  const order = await getOrderArtworkLines(orderGuid);
  if (!order) throw notFound('OrderNotFound', `No order ${orderGuid}.`);
  if (order.cancelled) throw conflict('OrderCancelled', `Order ${orderGuid} is Cancelled: there is nothing to print.`);
  const page = artworkPage(order.artworkLines, startOf(cursor, order.artworkLines.length));
  const withArtwork = page.lines.flatMap((line) =>
    line.artworkDigest === undefined ? [] : [{ projectGuid: line.projectGuid, artworkDigest: line.artworkDigest }],
  );
  const artworks = await getArtworks(withArtwork);
  const itemsOf = (line: ArtworkLine): ArtworkItem[] =>
    line.artworkDigest === undefined ? [] : (artworks.get(`${line.projectGuid}#${line.artworkDigest}`)?.items ?? []);
  const all = page.lines.flatMap(itemsOf);
  // Taken before signing: the URLs' own clock starts a moment later, so none expires before this.
  const downloadExpiresAt = Date.now() + config.downloadUrlSeconds * 1000;
  const [urls, links] = await Promise.all([
    presignOriginals(all),
    issueLinks(
      apiBaseUrl,
      orderGuid,
      page.lines.flatMap((line) => itemsOf(line).map((item) => ({ line: line.id, itemGuid: item.itemGuid }))),
    ),
  ]);
  let next = 0;
  const readable = (item: ArtworkItem) => {
    const index = next++;
    return { ...item, downloadUrl: urls[index] as string, downloadExpiresAt, downloadLink: links[index] as string };
  };
  return {
    orderGuid,
    lines: page.lines.map((line) => ({ ...line, items: itemsOf(line).map(readable) })),
    ...(page.next === undefined ? {} : { nextCursor: String(page.next) }),
  };
}
