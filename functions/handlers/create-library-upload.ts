import { endpoint } from '../http/endpoint.ts';
import { createUpload } from '../services/upload-service.ts';
import { libraryContracts, toUploadTicketOut } from '../contracts/library.ts';

export const handler = endpoint(libraryContracts.createUpload, async ({ principal }) =>
  toUploadTicketOut(await createUpload(principal.apiKey.id)),
);
