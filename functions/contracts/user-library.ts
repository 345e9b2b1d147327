/** The signed-in user's library (bearer token): claim a product builder URL, list the items, delete one. */
import * as z from 'zod/mini';
import { GuidOut, nameSchemas, NextCursorOut, PageQuery, responseSchemas, WireDateOut } from './common.ts';
import { LibraryItemPath } from './library.ts';
import { LibraryItemReadOut, toLibraryItemReadOut } from './library-read.ts';
import type { LibraryPage, ReadableItem } from '../domain/library-read.ts';

export const LIBRARY_PAGE_DEFAULT = 50;

export const ClaimInput = z.object({
  ProductBuilderUrl: z.string().check(
    z.minLength(1),
    z.maxLength(2048),
    z.meta({
      description: 'The ProductBuilderUrl a push, pull or completed upload answered: {CHECKOUT_URL}/builder/<token>',
      example: 'https://checkout.example.com/builder/0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    }),
  ),
});

const LibraryItems = z.array(LibraryItemReadOut);

export const ClaimedItemsOut = z.object({
  LibraryItems: LibraryItems.check(
    z.meta({
      description:
        "The link's items now in the user's library, in the order the link was minted; items another user holds and items deleted since are left out",
    }),
  ),
});

export const LibraryPageOut = z.object({
  LibraryItems: LibraryItems.check(
    z.meta({ description: 'Newest first (the time the item was uploaded, then its guid)' }),
  ),
  NextCursor: NextCursorOut,
});

export const LibraryPageQuery = z.object(PageQuery(LIBRARY_PAGE_DEFAULT));

export const DeletedLibraryItemOut = z.object({ ItemGuid: GuidOut, Deleted: z.literal(true) });
/** 202: the item is held by a checkout or order; hidden at once, erased when the last hold ends. */
export const ErasureScheduledOut = z.object({
  ItemGuid: GuidOut,
  ErasureScheduledDateUtc: WireDateOut.check(
    z.meta({
      description:
        'When the erasure was scheduled, as "\\/Date(<ms>)\\/": the item is gone for the user from then on; its original and renditions are erased when the last checkout or order holding them releases them',
    }),
  ),
});

export const toClaimedItemsOut = (items: ReadableItem[]): z.infer<typeof ClaimedItemsOut> => ({
  LibraryItems: items.map(toLibraryItemReadOut),
});

export const toLibraryPageOut = (page: LibraryPage): z.infer<typeof LibraryPageOut> => ({
  LibraryItems: page.items.map(toLibraryItemReadOut),
  ...(page.nextCursor !== undefined ? { NextCursor: page.nextCursor } : {}),
});

export const userLibraryContracts = {
  claim: {
    principal: 'user',
    body: ClaimInput,
    response: ClaimedItemsOut,
    errors: { 400: ['InvalidProductBuilderUrl'], 404: ['BuilderNotFound'], 409: ['AlreadyClaimed'] },
  },
  list: { principal: 'user', query: LibraryPageQuery, response: LibraryPageOut },
  delete: {
    principal: 'user',
    path: LibraryItemPath,
    response: DeletedLibraryItemOut,
    accepted: ErasureScheduledOut,
    errors: { 404: ['LibraryItemNotFound'] },
  },
} as const;

nameSchemas(responseSchemas, { ErasureScheduled: ErasureScheduledOut });
