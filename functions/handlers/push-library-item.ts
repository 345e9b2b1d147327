import { idempotentEndpoint } from '../http/idempotency.ts';
import { pushImages } from '../services/push-service.ts';
import { libraryContracts, toLibraryItemResultOut } from '../contracts/library.ts';

export const handler = idempotentEndpoint(libraryContracts.push, async ({ principal, event, headers }) =>
  toLibraryItemResultOut(
    await pushImages(
      { apiKeyId: principal.apiKey.id },
      { body: event.body, isBase64Encoded: event.isBase64Encoded, contentType: headers['content-type'] },
      'single',
    ),
  ),
);
