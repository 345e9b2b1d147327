import { endpoint } from '../http/endpoint.ts';
import { abortUpload } from '../services/multipart-upload-service.ts';
import { libraryMultipartContracts } from '../contracts/library-multipart.ts';

export const handler = endpoint(libraryMultipartContracts.abort, async ({ principal, path }) => {
  await abortUpload(principal.apiKey.id, path.itemGuid);
  return { ItemGuid: path.itemGuid, Aborted: true };
});
