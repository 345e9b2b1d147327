/**
 * A library item as the service keeps and reads it: the stored record, and the forms the reads answer
 * (with a presigned download URL, a product builder link's items, a page of a user's library). Plain
 * types: the stores persist them, the read services fill them in, the contracts map them to the wire.
 */
import type { LibraryItem } from './library.ts';
import type { PrintQuality } from './print-quality.ts';

/** An item record: the image's metadata, who pushed it (API key, anonymous owner) and where its bytes are. */
export interface StoredItem extends LibraryItem {
  apiKeyId: string;
  /** The anonymous user the push or pull created. */
  ownerId: string;
  objectKey: string;
  fileName?: string;
  createdAt: number;
}

/** A stored item as the reads answer it. */
export interface ReadableItem {
  item: StoredItem;
  downloadUrl: string;
  downloadExpiresAt: number;
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
