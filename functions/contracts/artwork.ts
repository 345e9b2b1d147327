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

export const artworkContracts = {
  get: {
    principal: 'fulfilment',
    path: OrderPath,
    query: ArtworkQuery,
    response: OrderArtworkOut,
    errors: { 404: ['OrderNotFound'], 409: ['OrderCancelled'] },
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
    })),
  })),
  ...(page.nextCursor === undefined ? {} : { NextCursor: page.nextCursor }),
});

nameSchemas(responseSchemas, {
  OrderArtwork: OrderArtworkOut,
  ArtworkLine: ArtworkLineOut,
  ArtworkItem: ArtworkItemOut,
});
