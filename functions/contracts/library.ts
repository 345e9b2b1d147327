/** Library and product builder request and response schemas (the wire contract) and the mapping to it. */
import * as z from 'zod/mini';
import { ACCEPTED_IMAGE_TYPES, MAX_BUILDER_ITEMS, type LibraryItem } from '../domain/library.ts';
import {
  Guid,
  GuidOut,
  IntegerOut,
  listOf,
  nameSchemas,
  requestSchemas,
  responseSchemas,
  WireDateOut,
} from './common.ts';
import { formatDate } from '../shared/dates.ts';

export const LibraryItemOut = z.object({
  ItemGuid: GuidOut,
  FileMimeType: z.string().check(
    z.meta({
      description: 'The type sniffed from the bytes, not the one the client declared',
      example: 'image/jpeg',
    }),
  ),
  FileSize: IntegerOut({
    minimum: 1,
    example: 2_457_600,
    description: 'Size in bytes (at most UPLOAD_MAX_BYTES, 100 MiB by default)',
  }),
  FileMd5: z
    .string()
    .check(z.regex(/^[0-9A-F]{32}$/), z.meta({ description: 'MD5 of the bytes, 32 uppercase hexadecimal characters' })),
});

const ProductBuilderUrl = z.url().check(
  z.meta({
    description: 'Absolute URL on the checkout site; its unguessable token identifies the anonymous user and the items',
  }),
);

export const LibraryItemResultOut = z.object({ LibraryItem: LibraryItemOut, ProductBuilderUrl });
export const LibraryItemsResultOut = z.object({
  LibraryItems: z.array(LibraryItemOut).check(z.meta({ description: 'One per file or URL, in request order' })),
  ProductBuilderUrl,
});
export const BuilderUrlOut = z.object({ ProductBuilderUrl });

export const LibraryItemPath = z.object({ itemGuid: Guid });

export const BuilderInput = z.object({
  Guids: listOf(Guid, MAX_BUILDER_ITEMS, 'item', 'Item guids, 36-character hyphenated (32 hexadecimal accepted too)'),
});

export const PresignedUploadOut = z.object({
  Url: z.url(),
  Method: z.literal('POST'),
  Fields: z
    .record(z.string(), z.string())
    .check(z.meta({ description: 'Send every field as a form field, then the file as the last part, named "file"' })),
});

export const UploadTicketOut = z.object({
  ItemGuid: GuidOut,
  Upload: PresignedUploadOut,
  MaxBytes: IntegerOut({
    minimum: 1,
    example: 104_857_600,
    description: 'The largest file the upload accepts, in bytes (UPLOAD_MAX_BYTES)',
  }),
  ExpiresDateUtc: WireDateOut,
});

export const toLibraryItemOut = (item: LibraryItem): z.infer<typeof LibraryItemOut> => ({
  ItemGuid: item.itemGuid,
  FileMimeType: item.mimeType,
  FileSize: item.size,
  FileMd5: item.md5,
});

interface IngestedItems {
  items: LibraryItem[];
  productBuilderUrl: string;
}

/** `{ LibraryItem, ProductBuilderUrl }` of a single push, pull or completed upload. */
export function toLibraryItemResultOut(result: IngestedItems): z.infer<typeof LibraryItemResultOut> {
  const [item] = result.items;
  if (item === undefined || result.items.length !== 1)
    throw new Error(`a single-item result holds ${result.items.length} items`);
  return { LibraryItem: toLibraryItemOut(item), ProductBuilderUrl: result.productBuilderUrl };
}

/** `{ LibraryItems, ProductBuilderUrl }` of a multi push or pull. */
export const toLibraryItemsResultOut = (result: IngestedItems): z.infer<typeof LibraryItemsResultOut> => ({
  LibraryItems: result.items.map(toLibraryItemOut),
  ProductBuilderUrl: result.productBuilderUrl,
});

export const toUploadTicketOut = (ticket: {
  itemGuid: string;
  url: string;
  fields: Record<string, string>;
  maxBytes: number;
  expiresAt: number;
}): z.infer<typeof UploadTicketOut> => ({
  ItemGuid: ticket.itemGuid,
  Upload: { Url: ticket.url, Method: 'POST', Fields: ticket.fields },
  MaxBytes: ticket.maxBytes,
  ExpiresDateUtc: formatDate(ticket.expiresAt),
});

const multipart = 'multipart/form-data';

/** What a stored image can be refused for: its size, its bytes (sniffed, not the declared type). */
export const imageErrors = { 413: ['PayloadTooLarge'], 415: ['UnsupportedMediaType', 'UnreadableImage'] } as const;
const pushErrors = {
  ...imageErrors,
  400: ['MalformedMultipart', 'NoImages', 'TooManyItems', 'ItemsRejected'],
} as const;

/** Route contracts of the library handlers this module owns (pull contracts live with the pull handlers). */
export const libraryContracts = {
  push: {
    principal: 'library',
    requestContentType: multipart,
    fileParts: { image: { description: `One image (${ACCEPTED_IMAGE_TYPES}); the only part of the form` } },
    idempotent: true,
    response: LibraryItemResultOut,
    errors: { ...pushErrors, 400: ['MalformedMultipart', 'MissingImagePart', 'UnexpectedPart'] },
  },
  pushMany: {
    principal: 'library',
    requestContentType: multipart,
    fileParts: {
      images: {
        description: `Images (${ACCEPTED_IMAGE_TYPES}), one part each, at most LIBRARY_MAX_ITEMS (default 20); any part name is accepted`,
        repeated: true,
      },
    },
    idempotent: true,
    response: LibraryItemsResultOut,
    errors: pushErrors,
  },
  itemBuilder: {
    principal: 'library',
    path: LibraryItemPath,
    response: BuilderUrlOut,
    errors: { 404: ['LibraryItemNotFound'] },
  },
  itemsBuilder: {
    principal: 'library',
    body: BuilderInput,
    response: BuilderUrlOut,
    errors: { 404: ['LibraryItemNotFound'] },
  },
  createUpload: { principal: 'library', response: UploadTicketOut },
  completeUpload: {
    principal: 'library',
    path: LibraryItemPath,
    response: LibraryItemResultOut,
    errors: { ...imageErrors, 404: ['UploadNotFound'], 409: ['UploadMissing', 'UploadInProgress'] },
  },
} as const;

nameSchemas(requestSchemas, { BuilderInput });
nameSchemas(responseSchemas, {
  LibraryItem: LibraryItemOut,
  LibraryItemResult: LibraryItemResultOut,
  LibraryItemsResult: LibraryItemsResultOut,
  BuilderUrl: BuilderUrlOut,
  UploadTicket: UploadTicketOut,
  PresignedUpload: PresignedUploadOut,
});
