import { endpoint } from '../http/endpoint.ts';
import { readItem } from '../services/library-read-service.ts';
import { libraryReadContracts, toLibraryItemReadOut } from '../contracts/library-read.ts';

export const handler = endpoint(libraryReadContracts.getItem, async ({ principal, path, query }) => {
  const { printWidthMm, printHeightMm } = query;
  const print =
    printWidthMm !== undefined && printHeightMm !== undefined
      ? { widthMm: printWidthMm, heightMm: printHeightMm }
      : undefined;
  return { LibraryItem: toLibraryItemReadOut(await readItem(principal.apiKey.id, path.itemGuid, print)) };
});
