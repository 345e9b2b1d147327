import { endpoint } from '../http/endpoint.ts';
import { apiBaseUrlOf } from '../http/api-base-url.ts';
import { readOrderArtwork } from '../services/artwork-service.ts';
import { artworkContracts, toOrderArtworkOut } from '../contracts/artwork.ts';

export const handler = endpoint(artworkContracts.get, async ({ path, query, event, headers }) =>
  toOrderArtworkOut(await readOrderArtwork(path.orderGuid, apiBaseUrlOf(event, headers), query.cursor)),
);
