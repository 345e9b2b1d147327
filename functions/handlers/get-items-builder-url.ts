import { endpoint } from '../http/endpoint.ts';
import { builderUrlForItems } from '../services/builder-service.ts';
import { libraryContracts } from '../contracts/library.ts';

export const handler = endpoint(libraryContracts.itemsBuilder, async ({ principal, body }) => ({
  ProductBuilderUrl: await builderUrlForItems(principal.apiKey.id, body.Guids),
}));
