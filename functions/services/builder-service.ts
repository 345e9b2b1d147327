/**
 * Product builder URLs: `{CHECKOUT_URL}/builder/<token>`, where the unguessable token names a builder
 * link (items, their anonymous owners, the API key). Kept apart from library-service.ts, which stores
 * images, so that the builder-URL handlers carry neither the multipart parser nor the S3 client.
 */
import { notFound } from '../shared/errors.ts';
import { newSecretId } from '../shared/ids.ts';
import { config } from '../shared/config.ts';
import * as library from '../store/library-store.ts';
import type { StoredItem } from '../domain/library-read.ts';

export const builderUrl = (token: string): string => `${config.checkoutUrl}/builder/${token}`;

const itemsNotFound = (itemGuids: string[]) =>
  notFound('LibraryItemNotFound', `No library item ${itemGuids.join(', ')}.`);

/**
 * A new builder URL for exactly these items, which must all be items of this API key: one BatchGetItem
 * (their owners), then the link's creation in one transaction that checks each item still exists.
 */
export async function builderUrlForItems(apiKeyId: string, itemGuids: string[]): Promise<string> {
  const wanted = [...new Set(itemGuids)];
  const found = new Map(
    (await library.getItems(wanted)).filter((item) => item.apiKeyId === apiKeyId).map((item) => [item.itemGuid, item]),
  );
  const missing = wanted.filter((guid) => !found.has(guid));
  if (missing.length > 0) throw itemsNotFound(missing);
  const token = newSecretId();
  const owners = [...new Set(wanted.map((guid) => (found.get(guid) as StoredItem).ownerId))];
  const erased = await library.createBuilderLink({
    token,
    apiKeyId,
    itemGuids: wanted,
    anonymousUserIds: owners,
    createdAt: Date.now(),
  });
  // An item erased between the read and the transaction: the link was not created.
  if (erased.length > 0) throw itemsNotFound(erased);
  return builderUrl(token);
}
