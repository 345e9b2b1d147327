import { endpoint } from '../http/endpoint.ts';
import { readOrderArtwork } from '../services/artwork-service.ts';
import { artworkContracts, toOrderArtworkOut } from '../contracts/artwork.ts';

export const handler = endpoint(artworkContracts.get, async ({ path, query }) =>
  toOrderArtworkOut(await readOrderArtwork(path.orderGuid, query.cursor)),
);
