/**
 * A library item as the service keeps and reads it: the stored record, and the forms the reads answer
 * (with a presigned download URL, a product builder link's items, a page of a user's library). Plain
 * types: the stores persist them, the read services fill them in, the contracts map them to the wire.
 */
import type { LibraryItem } from './library.ts';
import type { PrintQuality } from './print-quality.ts';
import type { Rendition, RenditionsState } from './renditions.ts';

/** An item record: the image's metadata, who pushed it (API key, anonymous owner) and where its bytes are. */
export interface StoredItem extends LibraryItem {
  apiKeyId: string;
  /** The anonymous user the push or pull created. */
  ownerId: string;
  objectKey: string;
  fileName?: string;
  createdAt: number;
  /** Set by the renditions function once it has decided (Ready or Failed); absent while pending. */
  renditions?: RenditionsState;
}

/** A rendition as the reads answer it: a presigned URL instead of the object key. */
export type ReadableRendition = Omit<Rendition, 'objectKey'> & { url: string };

/** The renditions' state as the reads answer it: Ready ones with their URLs. */
export type ReadableRenditions =
  | { status: 'Pending' }
  | Exclude<RenditionsState, { status: 'Ready' }>
  | { status: 'Ready'; thumbnail: ReadableRendition; preview: ReadableRendition };

/** A stored item as the reads answer it. */
export interface ReadableItem {
  item: StoredItem;
  downloadUrl: string;
  downloadExpiresAt: number;
  renditions: ReadableRenditions;
  printQuality?: PrintQuality;
}

/** The items behind a product builder token. */
export interface ResolvedBuilder {
  token: string;
  createdAt: number;
  /** In the order the URL was minted; items deleted since are left out. */
  items: ReadableItem[];
}

/** One page of a signed-in user's library. */
export interface LibraryPage {
  items: ReadableItem[];
  nextCursor?: string;
}
