import { endpoint } from '../http/endpoint.ts';
import { resolveBuilder } from '../services/library-read-service.ts';
import { libraryReadContracts, toBuilderOut } from '../contracts/library-read.ts';

export const handler = endpoint(libraryReadContracts.getBuilder, async ({ path }) =>
  toBuilderOut(await resolveBuilder(path.token)),
);
