import { endpoint } from '../http/endpoint.ts';
import { completeUpload } from '../services/multipart-complete-service.ts';
import { libraryMultipartContracts } from '../contracts/library-multipart.ts';
import { toLibraryItemResultOut } from '../contracts/library.ts';

export const handler = endpoint(libraryMultipartContracts.complete, async ({ principal, path, body }) =>
  toLibraryItemResultOut(
    await completeUpload(
      principal.apiKey.id,
      path.itemGuid,
      body.Parts.map((part) => ({ partNumber: part.PartNumber, etag: part.ETag })),
    ),
  ),
);
