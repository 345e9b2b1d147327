import { idempotentEndpoint } from '../http/idempotency.ts';
import { multipartRequestOf } from '../http/multipart-request.ts';
import { pushImages } from '../services/push-service.ts';
import { libraryContracts, toLibraryItemResultOut } from '../contracts/library.ts';

export const handler = idempotentEndpoint(libraryContracts.push, async (request) =>
  toLibraryItemResultOut(
    await pushImages({ apiKeyId: request.principal.apiKey.id }, multipartRequestOf(request), 'single'),
  ),
);
