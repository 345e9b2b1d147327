import { endpoint } from '../http/endpoint.ts';
import { completeUpload } from '../services/upload-service.ts';
import { libraryContracts, toLibraryItemResultOut } from '../contracts/library.ts';

export const handler = endpoint(libraryContracts.completeUpload, async ({ principal, path }) =>
  toLibraryItemResultOut(await completeUpload(principal.apiKey.id, path.itemGuid)),
);
