import { idempotentEndpoint } from '../http/idempotency.ts';
import { pullImages } from '../services/pull-service.ts';
import { libraryPullContracts } from '../contracts/library-pull.ts';
import { toLibraryItemsResultOut } from '../contracts/library.ts';

export const handler = idempotentEndpoint(libraryPullContracts.pullMany, async ({ principal, body }) =>
  toLibraryItemsResultOut(await pullImages({ apiKeyId: principal.apiKey.id }, body.Urls)),
);
