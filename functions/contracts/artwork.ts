/** The lab's read of an order's artwork (fulfilment key): schemas and the mapping to the wire form. */
import * as z from 'zod/mini';
import { formatDate } from '../shared/dates.ts';
import type { OrderArtworkPage } from '../domain/order.ts';
import { GuidOut, IntegerOut, nameSchemas, NextCursorOut, responseSchemas, WireDateOut } from './common.ts';
import { LibraryItemOut } from './library.ts';
import { ProjectVersionOut } from './project.ts';
import { OrderPath } from './order.ts';

export const ArtworkQuery = z.object({
  cursor: z.optional(
    z.string().check(z.meta({ description: 'The NextCursor of the page before; absent for the first page' })),
  ),
});

const Pixels = IntegerOut({ minimum: 1, example: 3000, description: 'Pixels as displayed (orientation applied)' });

export const ArtworkItemOut = z.extend(LibraryItemOut, {
  Width: Pixels,
  Height: Pixels,
  DownloadUrl: z.url().check(
    z.meta({
      description:
        'Presigned S3 GET of the original (the print master, not a rendition), answered with FileMimeType; valid DOWNLOAD_URL_SECONDS (900)',
    }),
  ),
  DownloadUrlExpiresDateUtc: WireDateOut,
  DownloadLink: z.url().check(
    z.meta({
      description:
        "A URL on this API that needs no credential and names no user, valid ARTWORK_LINK_DAYS (14): each GET answers 307 to a fresh presigned GET of the original. Signed (changed, 403 InvalidLink); 410 once expired (LinkExpired), once the order is Cancelled (OrderCancelled), or for an item erased after the order's hold ended (ArtworkErased). For a print queue that downloads later than DownloadUrl's 15 minutes",
    }),
  ),
});

export const ArtworkLineOut = z.object({
  Id: IntegerOut({ minimum: 1, example: 1, description: "The order line's Id" }),
  ProjectGuid: GuidOut,
  ProjectVersion: ProjectVersionOut,
  Items: z
    .array(ArtworkItemOut)
    .check(z.meta({ description: 'The items the project version named at checkout, in its order; [] for none' })),
});

export const OrderArtworkOut = z.object({
  OrderGuid: GuidOut,
  Lines: z.array(ArtworkLineOut).check(
    z.meta({
      description:
        "A page of the order's lines, in order: whole lines holding at most 1000 items together (at least one line)",
    }),
  ),
  NextCursor: NextCursorOut,
});

/** A link's parts are plain text: a link is checked by its signature alone, so any change is 403 InvalidLink. */
const linkPart = (description: string) => z.string().check(z.meta({ description }));

export const ArtworkLinkPath = z.object({
  orderGuid: linkPart('The order, as the DownloadLink names it'),
  itemGuid: linkPart('The library item, as the DownloadLink names it'),
});

export const ArtworkLinkQuery = z.object({
  line: z.optional(linkPart("The order line's Id the item was answered under")),
  expires: z.optional(linkPart('When the link expires, epoch seconds')),
  signature: z.optional(linkPart("The link's signature")),
});

export const artworkContracts = {
  get: {
    principal: 'fulfilment',
    path: OrderPath,
    query: ArtworkQuery,
    response: OrderArtworkOut,
    errors: { 404: ['OrderNotFound'], 409: ['OrderCancelled'] },
  },
  followLink: {
    path: ArtworkLinkPath,
    query: ArtworkLinkQuery,
    redirect:
      "307 to a presigned S3 GET of the original (valid DOWNLOAD_URL_SECONDS, 900), answered as an attachment with the item's FileMimeType",
    errors: { 403: ['InvalidLink'], 410: ['LinkExpired', 'OrderCancelled', 'ArtworkErased', 'OrderNotFound'] },
  },
} as const;

export const toOrderArtworkOut = (page: OrderArtworkPage): z.infer<typeof OrderArtworkOut> => ({
  OrderGuid: page.orderGuid,
  Lines: page.lines.map((line) => ({
    Id: line.id,
    ProjectGuid: line.projectGuid,
    ProjectVersion: line.projectVersion,
    Items: line.items.map((item) => ({
      ItemGuid: item.itemGuid,
      FileMimeType: item.mimeType,
      FileSize: item.size,
      FileMd5: item.md5,
      Width: item.width,
      Height: item.height,
      DownloadUrl: item.downloadUrl,
      DownloadUrlExpiresDateUtc: formatDate(item.downloadExpiresAt),
      DownloadLink: item.downloadLink,
    })),
  })),
  ...(page.nextCursor === undefined ? {} : { NextCursor: page.nextCursor }),
});

nameSchemas(responseSchemas, {
  OrderArtwork: OrderArtworkOut,
  ArtworkLine: ArtworkLineOut,
  ArtworkItem: ArtworkItemOut,
});
