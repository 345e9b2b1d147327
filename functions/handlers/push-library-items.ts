import { idempotentEndpoint } from '../http/idempotency.ts';
import { multipartRequestOf } from '../http/multipart-request.ts';
import { pushImages } from '../services/push-service.ts';
import { libraryContracts, toLibraryItemsResultOut } from '../contracts/library.ts';

export const handler = idempotentEndpoint(libraryContracts.pushMany, async (request) =>
  toLibraryItemsResultOut(
    await pushImages({ apiKeyId: request.principal.apiKey.id }, multipartRequestOf(request), 'multi'),
  ),
);
