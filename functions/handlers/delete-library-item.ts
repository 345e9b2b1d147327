import { endpoint, withStatus } from '../http/endpoint.ts';
import { deleteLibraryItem } from '../services/user-library-service.ts';
import { userLibraryContracts } from '../contracts/user-library.ts';
import { formatDate } from '../shared/dates.ts';

export const handler = endpoint(userLibraryContracts.delete, async ({ principal, path }) => {
  const outcome = await deleteLibraryItem(principal.userId, path.itemGuid);
  if (outcome.erased) return { ItemGuid: path.itemGuid, Deleted: true };
  return withStatus(202, { ItemGuid: path.itemGuid, ErasureScheduledDateUtc: formatDate(outcome.scheduledAt) });
});
