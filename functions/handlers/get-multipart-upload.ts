import { endpoint } from '../http/endpoint.ts';
import { uploadStatus } from '../services/multipart-upload-service.ts';
import { libraryMultipartContracts, toUploadStatusOut } from '../contracts/library-multipart.ts';

export const handler = endpoint(libraryMultipartContracts.status, async ({ principal, path }) => {
  const { upload, parts } = await uploadStatus(principal.apiKey.id, path.itemGuid);
  return toUploadStatusOut(upload, parts);
});
