/**
 * Artwork: the library items a project version prints, and what the lab needs of each to print it. Pure:
 * project-store keeps a version's artwork as one immutable record named by its digest, checkouts and orders
 * keep the digest per line, and the lab's read (services/artwork-service.ts) answers it with download URLs.
 */
import { createHash } from 'node:crypto';
import { conflict, DomainError } from '../shared/errors.ts';
import type { StoredItem } from './library-read.ts';

/** Items one project version may name: a 200-page book, one photo a page. */
export const MAX_ARTWORK_ITEMS = 200;

/** What the lab needs of one item: its original's object and the facts to check the download against. */
export interface ArtworkItem {
  itemGuid: string;
  mimeType: string;
  size: number;
  md5: string;
  width: number;
  height: number;
  objectKey: string;
}

/** The artwork a project version prints: its items in the order the catalog named them. */
export interface Artwork {
  projectGuid: string;
  digest: string;
  items: ArtworkItem[];
}

/** What a checkout or order line keeps of its project version's artwork: the record's name and its size. */
export interface ArtworkRef {
  artworkDigest: string;
  artworkItemCount: number;
}

/** The name of a list of items: the same guids in the same order always make the same digest. */
export const artworkDigest = (itemGuids: readonly string[]): string =>
  createHash('sha256').update(itemGuids.join(',')).digest('hex').slice(0, 32);

export const artworkItemOf = (item: StoredItem): ArtworkItem => ({
  itemGuid: item.itemGuid,
  mimeType: item.mimeType,
  size: item.size,
  md5: item.md5,
  width: item.width,
  height: item.height,
  objectKey: item.objectKey,
});

/**
 * The project's artwork from the item records found, in the order named; 422 naming every guid that has no
 * record: unknown, erased, or scheduled for erasure (whose records the erasure deleted at once).
 */
export function artworkOf(
  projectGuid: string,
  itemGuids: readonly string[],
  found: ReadonlyMap<string, StoredItem>,
): Artwork {
  const missing = itemGuids.filter((guid) => !found.has(guid));
  if (missing.length > 0)
    throw new DomainError(
      'Unprocessable',
      'UnknownLibraryItem',
      `ItemGuids: no library item ${missing.join(', ')} (unknown or erased).`,
      { details: { Fields: ['ItemGuids'], ItemGuids: missing } },
    );
  return {
    projectGuid,
    digest: artworkDigest(itemGuids),
    items: itemGuids.map((guid) => artworkItemOf(found.get(guid) as StoredItem)),
  };
}

/** A version's artwork is fixed: another list of items needs a new `Version`. */
export const artworkNeedsNewVersion = (projectGuid: string, version: number) =>
  conflict(
    'ArtworkNeedsNewVersion',
    `ItemGuids: project ${projectGuid} version ${version} names other artwork; register the new artwork with a new Version.`,
  );

/**
 * Items one page of an order's artwork answers at most. Each item carries a presigned URL (about 800 bytes
 * of JSON in all), so a page stays under 1 MB, far inside Lambda's 6 MB answer; a 94-line order of 200 items
 * a line is 19 pages. Pages hold whole lines (a line has at most 200 items), so a line is never split.
 */
export const ARTWORK_PAGE_ITEMS = 1000;

/**
 * The lines of the page that starts at line `start`: as many whole lines as hold ARTWORK_PAGE_ITEMS items
 * (at least one), and the index the next page starts at when lines remain.
 */
export function artworkPage<L extends { artworkItemCount?: number }>(
  lines: readonly L[],
  start: number,
): { lines: L[]; next?: number } {
  let items = 0;
  let end = start;
  while (end < lines.length) {
    items += lines[end]?.artworkItemCount ?? 0;
    if (items > ARTWORK_PAGE_ITEMS && end > start) break;
    end++;
  }
  return { lines: lines.slice(start, end), ...(end < lines.length ? { next: end } : {}) };
}
