import { endpoint } from '../http/endpoint.ts';
import { listLibrary } from '../services/user-library-service.ts';
import { LIBRARY_PAGE_DEFAULT, toLibraryPageOut, userLibraryContracts } from '../contracts/user-library.ts';

export const handler = endpoint(userLibraryContracts.list, async ({ principal, query }) =>
  toLibraryPageOut(
    await listLibrary(principal.userId, { limit: query.limit ?? LIBRARY_PAGE_DEFAULT, cursor: query.cursor }),
  ),
);
