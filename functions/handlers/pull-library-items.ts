import { endpoint } from '../shared/http.ts';
import { pullImages } from '../services/pull-service.ts';
import { libraryPullContracts } from '../contracts/library-pull.ts';
import { toLibraryItemsResultOut } from '../contracts/library.ts';

export const handler = endpoint(libraryPullContracts.pullMany, async ({ principal, body }) =>
  toLibraryItemsResultOut(await pullImages({ apiKeyId: principal.apiKey.id }, body.Urls)),
);
