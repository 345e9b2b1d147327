import { endpoint, redirectTo } from '../http/endpoint.ts';
import { followLink } from '../services/artwork-link-service.ts';
import { artworkContracts } from '../contracts/artwork.ts';

export const handler = endpoint(artworkContracts.followLink, async ({ path, query }) =>
  redirectTo(await followLink({ ...path, ...query })),
);
