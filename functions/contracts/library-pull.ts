/** Pull request schemas (fetch by URL); the responses are the library's (contracts/library.ts). */
import * as z from 'zod/mini';
import { imageErrors, LibraryItemResultOut, LibraryItemsResultOut } from './library.ts';
import { nameSchemas, requestSchemas } from './common.ts';

/** Only the length is checked here: scheme, host and addresses are the fetch policy's (a 422 naming the URL). */
const PullUrl = z.string().check(
  z.minLength(1, 'must not be empty'),
  z.maxLength(2048, 'must be at most 2048 characters'),
  z.meta({
    description: 'Absolute http or https URL of an image on a public address',
    example: 'https://images.example.com/photo.jpg',
  }),
);

export const PullInput = z.object({ Url: PullUrl });

const PullUrls = z
  .array(PullUrl)
  .check(
    z.minLength(1, 'must name at least one URL'),
    z.meta({ description: 'At most LIBRARY_MAX_ITEMS (default 20) URLs; fetched 4 at a time (PULL_CONCURRENCY)' }),
  );

export const MultiPullInput = z.object({ Urls: PullUrls });

/** 422: the fetch policy refused the URL, or the fetch failed (functions/library/safe-fetch.ts). */
const pullErrors = { ...imageErrors, 422: ['PullRefused', 'PullFailed'] } as const;

export const libraryPullContracts = {
  pull: { principal: 'library', body: PullInput, idempotent: true, response: LibraryItemResultOut, errors: pullErrors },
  pullMany: {
    principal: 'library',
    body: MultiPullInput,
    idempotent: true,
    response: LibraryItemsResultOut,
    errors: { ...pullErrors, 400: ['TooManyItems', 'ItemsRejected'] },
  },
} as const;

nameSchemas(requestSchemas, { PullInput, MultiPullInput });
