/** docs/limits.md: every size, count and time limit, from the constants and defaults of the code. */
import { ARTWORK_PAGE_ITEMS, MAX_ARTWORK_ITEMS } from '../../functions/domain/artwork.ts';
import { MAX_HOLD_MARKS } from '../../functions/domain/artwork-hold.ts';
import { KEPT_ATTEMPTS, REDELIVERY_INTERVAL_MS } from '../../functions/domain/webhook-delivery.ts';
import { MAX_LINES, MAX_QUANTITY } from '../../functions/domain/basket.ts';
import { MAX_BUILDER_ITEMS } from '../../functions/domain/library.ts';
import { z } from 'zod/mini';
import { MAX_PROJECT_NAME_LENGTH, MAX_UNIT_PRICE } from '../../functions/contracts/project.ts';
import { CompleteCheckoutInput } from '../../functions/contracts/order.ts';
import { StartUploadInput } from '../../functions/contracts/library-multipart.ts';
import { DEFAULT_PAGE_LIMIT } from '../../functions/contracts/common.ts';
import { LIBRARY_PAGE_DEFAULT } from '../../functions/contracts/user-library.ts';
import { IMAGE_HEADER_MAX_BYTES } from '../../functions/library/image-header/index.ts';
import { MAX_REQUEST_BYTES } from '../local/service.ts';
import { grouped, bytes, duration, table } from './markdown.ts';
import { envReads } from './env-reads.ts';

const defaultOf = (name: string): number => {
  const read = envReads().find((candidate) => candidate.name === name);
  if (typeof read?.fallback !== 'number') throw new Error(`${name} has no numeric default in the code`);
  return read.fallback;
};

/** `min–max` characters of a string field of a request contract, as its JSON schema states them. */
const lengthOf = (schema: z.ZodMiniType, field: string): string => {
  const property = (z.toJSONSchema(schema) as { properties: Record<string, { minLength: number; maxLength: number }> })
    .properties[field];
  if (!property) throw new Error(`no field ${field} in the contract`);
  return `${property.minLength}–${property.maxLength}`;
};

export function limitsTable(): string {
  const d = defaultOf;
  const rows: [string, string][] = [
    ['quantity per line', `1–${MAX_QUANTITY}`],
    [
      'lines per basket',
      `${MAX_LINES} (the completion of its checkout is one transaction of at most 100 actions); one more is 409 \`BasketFull\``,
    ],
    ['unit price', `0–${grouped(MAX_UNIT_PRICE)} with at most two fraction digits`],
    ['project `Name`', `1–${MAX_PROJECT_NAME_LENGTH} characters after trimming, no control characters`],
    [
      'project `ItemGuids` (artwork)',
      `1–${MAX_ARTWORK_ITEMS} library items per version, none twice; an unknown or erased one is 422 \`UnknownLibraryItem\``,
    ],
    [
      'items per page of `GET /order/{orderGuid}/artwork`',
      `whole lines holding at most ${grouped(ARTWORK_PAGE_ITEMS)} items (at least one line); more through \`NextCursor\``,
    ],
    [
      'artwork hold',
      `from the checkout until it expires unpaid or \`CHECKOUT_HOLD_HOURS\` (${d('CHECKOUT_HOLD_HOURS')}) hours pass unpaid (an erasure then goes ahead and closes the checkout: completing it is 409 \`ArtworkErased\`), the order is \`Cancelled\`, or \`ARTWORK_HOLD_DAYS\` (${d('ARTWORK_HOLD_DAYS')}) days after it is \`Completed\``,
    ],
    [
      'hold marks on one library item',
      `${grouped(MAX_HOLD_MARKS)} (46 bytes each: ${grouped(Math.ceil((MAX_HOLD_MARKS * 46) / 1000))} KB of the item's 400 KB); past it a checkout naming the item first takes off the marks of ended checkouts, and is 409 \`ArtworkHoldsFull\` when none had ended. A basket checked out again unchanged answers its open checkout and takes no mark, so only a basket changed between checkouts adds one, and only on the buyer's own items or unclaimed uploads (409 \`ArtworkNotYours\` otherwise); an erasure reads each mark's checkout (a BatchGetItem per 100)`,
    ],
    ['request body', `${bytes(MAX_REQUEST_BYTES)} (Lambda's synchronous payload limit); larger answers 413`],
    ['basket lifetime', `${d('BASKET_TTL_DAYS')} days untouched (\`BASKET_TTL_DAYS\`)`],
    [
      'open baskets per user',
      `${d('MAX_OPEN_BASKETS_PER_USER')} (\`MAX_OPEN_BASKETS_PER_USER\`); more is 409 \`BasketQuotaExceeded\``,
    ],
    [
      'items per page of `GET /orders`, `GET /baskets`',
      `${DEFAULT_PAGE_LIMIT} by default, \`?limit=\` 1–200; more through \`NextCursor\``,
    ],
    ['`PaymentReference`', `${lengthOf(CompleteCheckoutInput, 'PaymentReference')} characters`],
    [
      'checkout lifetime',
      `\`BASKET_TTL_DAYS\` (${d('BASKET_TTL_DAYS')}) days; after that \`GET\`/\`complete\` answer 404 \`CheckoutNotFound\``,
    ],
    [
      'images per push or pull request',
      `${d('LIBRARY_MAX_ITEMS')} (\`LIBRARY_MAX_ITEMS\`); more is 400 \`TooManyItems\``,
    ],
    [
      'push request body',
      `${bytes(d('PUSH_MAX_BYTES'))} (\`PUSH_MAX_BYTES\`); more is 413, pointing to the large-file upload`,
    ],
    [
      'large-file upload',
      `${bytes(d('UPLOAD_MAX_BYTES'))} (\`UPLOAD_MAX_BYTES\`), presigned POST valid ${duration(d('UPLOAD_EXPIRY_SECONDS'))} (\`UPLOAD_EXPIRY_SECONDS\`)`,
    ],
    [
      'resumable upload',
      `${bytes(d('MULTIPART_MAX_BYTES'))} (\`MULTIPART_MAX_BYTES\`, at most 5 GiB); more is 413. Open ${duration(d('MULTIPART_EXPIRY_SECONDS'))} (\`MULTIPART_EXPIRY_SECONDS\`); each part exactly its planned size (its URL signs it: any other is 403 from S3)`,
    ],
    [
      'open resumable uploads per API key',
      `${d('MULTIPART_MAX_OPEN_PER_KEY')} (\`MULTIPART_MAX_OPEN_PER_KEY\`, at most 1000); more is 409 \`UploadQuotaExceeded\`; completion, refusal, abort and expiry free a place`,
    ],
    [
      '`ContentType` of a resumable upload',
      `${lengthOf(StartUploadInput, 'ContentType')} printable ASCII characters (it is sent to S3 as a header)`,
    ],
    [
      'completing a large-file upload',
      'until the presigned POST expires; a completion that recorded its outcome can be finished or answered again for 30 more minutes, then 404 `UploadNotFound`',
    ],
    [
      'leftovers of a library request that never committed',
      'swept once its intent expires, an hour after the request began (DynamoDB deletes expired items typically within two days); invisible to clients until then',
    ],
    [
      'items per builder URL request',
      `${MAX_BUILDER_ITEMS} (\`POST /library/builder\`: one transaction with the link)`,
    ],
    ['pulled image', `${bytes(d('PULL_MAX_BYTES'))} (\`PULL_MAX_BYTES\`); more is 413`],
    [
      'time per pulled URL',
      `${d('PULL_TIMEOUT_MS') / 1000} s (\`PULL_TIMEOUT_MS\`), the whole request's fetches end within ${d('PULL_REQUEST_TIMEOUT_MS') / 1000} s (\`PULL_REQUEST_TIMEOUT_MS\`); a time-out is 422 \`PullFailed\``,
    ],
    ['redirects per pulled URL', `${d('PULL_MAX_REDIRECTS')} (\`PULL_MAX_REDIRECTS\`); more is 422 \`PullRefused\``],
    ['URLs fetched at once', `${d('PULL_CONCURRENCY')} per request (\`PULL_CONCURRENCY\`)`],
    [
      '`GET /library` page',
      `1–200 items (\`?limit=\`, default ${LIBRARY_PAGE_DEFAULT}); a cursor of another listing or an altered one is 400 \`InvalidCursor\``,
    ],
    [
      '`POST /library/claim`',
      `one link per call, with the items it names (at most ${d('LIBRARY_MAX_ITEMS')} for an upload's link, ${MAX_BUILDER_ITEMS} for one minted by \`POST /library/builder\`)`,
    ],
    [
      'image header read for metadata',
      `the first ${bytes(IMAGE_HEADER_MAX_BYTES)} of each image (\`IMAGE_HEADER_MAX_BYTES\`); a header not complete within it, or cut short, is 415 \`UnreadableImage\``,
    ],
    ['items one builder token resolves to', `${MAX_BUILDER_ITEMS} (one BatchGetItem)`],
    ['download URL lifetime', `${d('DOWNLOAD_URL_SECONDS')} s (\`DOWNLOAD_URL_SECONDS\`)`],
    ['print size', 'more than 0 and at most 10,000 mm per side, up to 3 decimals'],
    [
      'attempts a webhook delivery keeps',
      `the latest ${KEPT_ATTEMPTS}; older ones are dropped, \`AttemptCount\` counts all`,
    ],
    [
      'redeliveries of one webhook delivery',
      `one per ${duration(REDELIVERY_INTERVAL_MS / 1000)}, none while it is \`Pending\` or \`Paused\`: 409 \`DeliveryPending\` or \`RedeliveredRecently\``,
    ],
  ];
  return table(['what', 'limit'], rows);
}
