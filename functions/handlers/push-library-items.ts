import { idempotentEndpoint } from '../http/idempotency.ts';
import { pushImages } from '../services/push-service.ts';
import { libraryContracts, toLibraryItemsResultOut } from '../contracts/library.ts';

export const handler = idempotentEndpoint(libraryContracts.pushMany, async ({ principal, event, headers }) =>
  toLibraryItemsResultOut(
    await pushImages(
      { apiKeyId: principal.apiKey.id },
      { body: event.body, isBase64Encoded: event.isBase64Encoded, contentType: headers['content-type'] },
      'multi',
    ),
  ),
);
