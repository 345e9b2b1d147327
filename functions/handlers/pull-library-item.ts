import { idempotentEndpoint } from '../http/idempotency.ts';
import { pullImages } from '../services/pull-service.ts';
import { libraryPullContracts } from '../contracts/library-pull.ts';
import { toLibraryItemResultOut } from '../contracts/library.ts';

export const handler = idempotentEndpoint(libraryPullContracts.pull, async ({ principal, body }) =>
  toLibraryItemResultOut(await pullImages({ apiKeyId: principal.apiKey.id }, [body.Url])),
);
