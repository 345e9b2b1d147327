import { endpoint } from '../http/endpoint.ts';
import { startUpload } from '../services/multipart-upload-service.ts';
import { libraryMultipartContracts, toUploadOut } from '../contracts/library-multipart.ts';

export const handler = endpoint(libraryMultipartContracts.start, async ({ principal, body }) =>
  toUploadOut(
    await startUpload(principal.apiKey.id, {
      fileName: body.FileName,
      contentType: body.ContentType,
      fileSize: body.FileSize,
    }),
  ),
);
