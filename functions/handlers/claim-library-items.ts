import { endpoint } from '../http/endpoint.ts';
import { claimLink } from '../services/user-library-service.ts';
import { toClaimedItemsOut, userLibraryContracts } from '../contracts/user-library.ts';

export const handler = endpoint(userLibraryContracts.claim, async ({ principal, body }) =>
  toClaimedItemsOut(await claimLink(principal.userId, body.ProductBuilderUrl)),
);
