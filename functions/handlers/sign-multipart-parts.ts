import { endpoint } from '../http/endpoint.ts';
import { signParts } from '../services/multipart-upload-service.ts';
import { libraryMultipartContracts, toSignedPartsOut } from '../contracts/library-multipart.ts';

export const handler = endpoint(libraryMultipartContracts.signParts, async ({ principal, path, body }) =>
  toSignedPartsOut(await signParts(principal.apiKey.id, path.itemGuid, body.PartNumbers)),
);
