import { endpoint } from '../http/endpoint.ts';
import { deleteLibraryItem } from '../services/user-library-service.ts';
import { userLibraryContracts } from '../contracts/user-library.ts';

export const handler = endpoint(userLibraryContracts.delete, async ({ principal, path }) => {
  await deleteLibraryItem(principal.userId, path.itemGuid);
  return { ItemGuid: path.itemGuid, Deleted: true };
});
