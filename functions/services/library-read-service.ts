/**
 * Library reads: one item for the client app (GET /library/{itemGuid}) and the items behind a product
 * builder URL for the builder site (GET /builder/{token}), each with a presigned download URL signed in
 * process. Kept apart from the ingest so these handlers carry neither the multipart parser nor the upload.
 */
import { notFound } from '../shared/errors.ts';
import { config } from '../shared/config.ts';
import { printQuality } from '../domain/print-quality.ts';
import type { ReadableItem, ReadableRenditions, ResolvedBuilder, StoredItem } from '../domain/library-read.ts';
import type { Rendition } from '../domain/renditions.ts';
import * as library from '../store/library-store.ts';
import { presignDownloads } from '../store/image-object-store.ts';
import type { Download } from '../store/download-signer.ts';

export interface PrintSize {
  widthMm: number;
  heightMm: number;
}

/** The objects an item's answer links to: the original, then its renditions when they are ready. */
const linkedObjects = ({ objectKey, mimeType, renditions }: StoredItem): Download[] => [
  { objectKey, contentType: mimeType, disposition: 'attachment' },
  ...(renditions?.status === 'Ready'
    ? [renditions.thumbnail, renditions.preview].map(({ objectKey, contentType }): Download => ({
        objectKey,
        contentType,
        disposition: 'inline',
      }))
    : []),
];

/** The renditions as answered, given the URLs signed for their objects (in linkedObjects' order). */
function readableRenditions({ renditions }: StoredItem, [thumbnail, preview]: string[]): ReadableRenditions {
  if (renditions?.status === 'Failed') return renditions;
  if (renditions?.status !== 'Ready' || thumbnail === undefined || preview === undefined) return { status: 'Pending' };
  const answer = ({ width, height, contentType }: Rendition, url: string) => ({ url, width, height, contentType });
  return {
    status: 'Ready',
    thumbnail: answer(renditions.thumbnail, thumbnail),
    preview: answer(renditions.preview, preview),
  };
}

/** The items with their download and rendition URLs, all signed in one pass, with the same lifetime. */
export async function readable(items: StoredItem[]): Promise<ReadableItem[]> {
  const seconds = config.downloadUrlSeconds;
  // Taken before signing: the URLs' own clock starts a moment later, so none expires before this.
  const downloadExpiresAt = Date.now() + seconds * 1000;
  const linked = items.map(linkedObjects);
  const urls = await presignDownloads(linked.flat(), seconds);
  let next = 0;
  return items.map((item, index) => {
    const [downloadUrl, ...renditionUrls] = urls.slice(next, (next += linked[index]!.length));
    return { item, downloadUrl: downloadUrl!, downloadExpiresAt, renditions: readableRenditions(item, renditionUrls) };
  });
}

const itemNotFound = (itemGuid: string) => notFound('LibraryItemNotFound', `No library item ${itemGuid}.`);

/** One item of this API key (another key's answers like a missing one), with its print quality at `print` if given. */
export async function readItem(apiKeyId: string, itemGuid: string, print?: PrintSize): Promise<ReadableItem> {
  const item = await library.getItem(itemGuid);
  if (!item || item.apiKeyId !== apiKeyId) throw itemNotFound(itemGuid);
  const [read] = (await readable([item])) as [ReadableItem];
  return print ? { ...read, printQuality: printQuality(item, print, config.printThresholds) } : read;
}

/**
 * The items behind a builder token: one GetItem (the link) and one BatchGetItem (its items, 99 at most).
 * Every item record is committed (a request's records are created in one transaction), so an item the
 * link names that is missing now was erased since: it is left out.
 */
export async function resolveBuilder(token: string): Promise<ResolvedBuilder> {
  const link = await library.getBuilderLink(token);
  if (!link) throw notFound('BuilderNotFound', 'No product builder link for this token.');
  const found = new Map((await library.getItems(link.itemGuids)).map((item) => [item.itemGuid, item]));
  const items = link.itemGuids.flatMap((itemGuid) => {
    const item = found.get(itemGuid);
    return item ? [item] : [];
  });
  return { token: link.token, createdAt: link.createdAt, items: await readable(items) };
}
