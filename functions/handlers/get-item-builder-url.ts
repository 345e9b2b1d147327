import { endpoint } from '../http/endpoint.ts';
import { builderUrlForItems } from '../services/builder-service.ts';
import { libraryContracts } from '../contracts/library.ts';

export const handler = endpoint(libraryContracts.itemBuilder, async ({ principal, path }) => ({
  ProductBuilderUrl: await builderUrlForItems(principal.apiKey.id, [path.itemGuid]),
}));
