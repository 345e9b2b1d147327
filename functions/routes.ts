/**
 * The route table: the single list of endpoints. The local API Gateway front (lib/local) and the CDK
 * stack (lib/) are both built from it, so they cannot drift. Pure data on purpose: the authorizer
 * bundles it to build its policies, and it must stay small.
 */
import { KEYS, type KeyPrefix } from './store/keys.ts';
import { isApiKeyScope, type ApiKeyScope } from './auth/principal.ts';

/**
 * Which credential a route takes. `user`: bearer JWT. An API key scope: an API key of that scope. `apiKey`:
 * an API key of any scope (what each key may do there is the route's own rule, e.g. webhooks' event types).
 */
export type Credential = 'none' | 'user' | 'apiKey' | ApiKeyScope;

/** The API key scope a route takes, or undefined when it takes a bearer token, any API key or nothing. */
export const keyScopeOf = (route: Pick<Route, 'credential'>): ApiKeyScope | undefined =>
  isApiKeyScope(route.credential) ? route.credential : undefined;

/** Whether the route takes an API key (of its scope, or of any). */
export const takesApiKey = (route: Pick<Route, 'credential'>): boolean =>
  route.credential === 'apiKey' || keyScopeOf(route) !== undefined;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Table access: the partition-key prefixes a function may read, and may write (none: no write action). */
export interface TableGrant {
  read: readonly KeyPrefix[];
  write?: readonly KeyPrefix[];
}

/**
 * What a route's function may touch; the CDK stack grants exactly this and nothing more (the test command
 * evaluates every call each function makes, with the keys it names, against the policies the stack writes). Bucket (image objects): `read`
 * only signs presigned downloads of library objects (a presigned URL carries its signer's rights); `labRead`
 * also of originals held for the lab; `put` only signs presigned uploads; `delete` deletes library objects
 * and held originals, and copies a held item's original to its held key (erasure by their user); `write` streams objects in and deletes them when the request fails;
 * `readwrite` also reads them back. `multipart`: resumable uploads of library objects (create, sign part
 * PUTs, list parts, complete, abort), reading the assembled object and deleting it when it is no image.
 */
export interface Grants {
  table?: TableGrant;
  bucket?: 'read' | 'labRead' | 'put' | 'delete' | 'write' | 'readwrite' | 'multipart';
  /** events:PutEvents on the service's bus. */
  events?: true;
  /** sqs:SendMessage to the webhook deliveries queue (a redelivery, the deliveries a paused webhook's enabling queues), and its URL in WEBHOOK_DELIVERY_QUEUE_URL. */
  webhookDeliveries?: true;
  /** The webhook secrets' KMS key: `seal` (kms:Encrypt, management) or `open` (kms:Decrypt, delivery), each only with a webhook's id as encryption context. */
  webhookSecrets?: 'seal' | 'open';
  /** kms:GenerateMac with the artwork links' HMAC key (its daily signing keys), and the key in ARTWORK_LINK_KEY_ID. */
  artworkLinks?: true;
}

const { user, project, checkout, order, apiKey, idempotency, outbox } = KEYS;
const LIBRARY_KEYS = [
  KEYS.libraryItem,
  KEYS.anonymousUser,
  KEYS.builder,
  KEYS.ingest,
  KEYS.upload,
  idempotency,
  KEYS.libraryUser,
  KEYS.erasure,
];

/** Table grants by route group. `outbox`: the route records a domain event in its transaction (store/outbox-store.ts). */
const tables = {
  basketRead: { read: [user] },
  basketChange: { read: [user], write: [user] },
  basketCreate: { read: [user, idempotency], write: [user, idempotency] },
  linePricing: { read: [user, project], write: [user] },
  lineAdd: { read: [user, project, idempotency], write: [user, idempotency] },
  /**
   * A checkout marks each item of its artwork as held (services/checkout-commit.ts); a basket checked out
   * again unchanged reads its open checkout.
   */
  basketCheckout: {
    read: [user, project, idempotency, checkout],
    write: [user, checkout, idempotency, outbox, KEYS.libraryItem],
  },
  projectRead: { read: [project] },
  /** A version's artwork: its items are read (they must exist) and described in the artwork record. */
  projectWrite: { read: [project, KEYS.libraryItem], write: [project] },
  checkoutRead: { read: [checkout, user] },
  checkoutComplete: { read: [checkout, user], write: [checkout, user, order, outbox] },
  orderRead: { read: [user] },
  /** A change that ends the order's artwork hold writes it on the checkout record, a cancel on the owner pointer. */
  orderStatus: { read: [order, user], write: [user, order, outbox, checkout] },
  /** The customer's cancel: their own order (no owner pointer to read), the events, the hold's end. */
  orderCancel: { read: [user, idempotency], write: [user, order, outbox, checkout, idempotency] },
  /** The lab's read of an order's artwork: the owner pointer, the artwork records under their projects, their items' erasures. */
  orderArtwork: { read: [order, project, KEYS.erasure] },
  /** A DownloadLink's check: the owner pointer and the item's record; a held, erased item's artwork record and erasure intent. */
  artworkLink: { read: [order, KEYS.libraryItem, project, KEYS.erasure] },
  library: { read: LIBRARY_KEYS, write: LIBRARY_KEYS },
  /** An erasure reads its item's holds (their checkout records) and breaks checkouts that may never be paid. */
  libraryErase: { read: [...LIBRARY_KEYS, checkout], write: [...LIBRARY_KEYS, checkout] },
  /** A push, pull or completed upload: its commit records the LibraryItemsAdded event in the outbox. */
  libraryIngest: { read: LIBRARY_KEYS, write: [...LIBRARY_KEYS, KEYS.outbox] },
  libraryRead: { read: LIBRARY_KEYS },
  /** A key's webhooks and, written with them, their subscription index items. */
  webhookRead: { read: [KEYS.webhook] },
  webhookChange: { read: [KEYS.webhook], write: [KEYS.webhook, KEYS.webhookSubscription] },
  /** A webhook's delivery log, read after its webhook (the caller's own); a redelivery marks one Pending again. */
  deliveryLog: { read: [KEYS.webhook, KEYS.webhookDelivery] },
  redelivery: { read: [KEYS.webhook, KEYS.webhookDelivery], write: [KEYS.webhookDelivery] },
} satisfies Record<string, TableGrant>;

/** The API-key authorizer: a GetItem of the key's hash. */
export const authorizerTableGrant: TableGrant = { read: [apiKey] };
/**
 * The library sweeper: reads an intent's owner (whether the request committed); when a checkout's artwork
 * hold ended, reads its artwork, the deferred erasures of its items and their holds' checkouts, and releases
 * those erasures (breaking checkouts that may still become payable), as when an erasure's unpaid holds end.
 */
export const sweeperTableGrant: TableGrant = {
  read: [KEYS.anonymousUser, project, KEYS.erasure, checkout],
  write: [KEYS.erasure, checkout],
};
/** The renditions function: reads item records, writes their renditions there and in the holder's library entry. */
export const renditionsTableGrant: TableGrant = {
  read: [KEYS.libraryItem],
  write: [KEYS.libraryItem, KEYS.libraryUser],
};
/** ... and puts the LibraryItemRenditionsDecided event's outbox record in the decision's transaction. */
export const renditionsOutboxPrefixes: readonly KeyPrefix[] = [KEYS.outbox];

/** The webhook fan-out: reads an event type's subscribers, writes their deliveries. */
export const webhookFanoutTableGrant: TableGrant = {
  read: [KEYS.webhookSubscription],
  write: [KEYS.webhookDelivery],
};
/** The webhook delivery: reads webhooks, their key's revoked mark (the count item) and deliveries, records attempts, disables a webhook (with its subscription items). */
export const webhookDeliverTableGrant: TableGrant = {
  read: [KEYS.webhook, KEYS.webhookDelivery],
  write: [KEYS.webhook, KEYS.webhookSubscription, KEYS.webhookDelivery],
};

export interface Route {
  method: HttpMethod;
  /** API Gateway resource path; `{name}` marks a path parameter. */
  path: string;
  /** Module name under functions/handlers/ exporting `handler`. One Lambda function per route. */
  handler: string;
  credential: Credential;
  /** Short description for the OpenAPI document and the dashboard. */
  summary: string;
  grants: Grants;
}

// One route per line: the table reads best as rows.
// prettier-ignore
export const routes: readonly Route[] = [
  { method: 'GET', path: '/health', handler: 'get-health', credential: 'none', summary: 'Liveness check', grants: {} },
  { method: 'GET', path: '/openapi.json', handler: 'get-openapi', credential: 'none', summary: 'OpenAPI 3.1 document', grants: {} },

  { method: 'POST', path: '/basket', handler: 'create-basket', credential: 'user', summary: 'Create an empty basket', grants: { table: tables.basketCreate } },
  { method: 'GET', path: '/baskets', handler: 'list-baskets', credential: 'user', summary: "List the user's baskets", grants: { table: tables.basketRead } },
  { method: 'GET', path: '/basket/{basketGuid}', handler: 'get-basket', credential: 'user', summary: 'Read a basket', grants: { table: tables.basketRead } },
  { method: 'DELETE', path: '/basket/{basketGuid}', handler: 'delete-basket', credential: 'user', summary: 'Delete a basket', grants: { table: tables.basketChange } },
  { method: 'POST', path: '/basket/{basketGuid}/line', handler: 'add-basket-line', credential: 'user', summary: 'Add a line (or add to the line of that project)', grants: { table: tables.lineAdd } },
  { method: 'PUT', path: '/basket/{basketGuid}/line/{lineId}', handler: 'update-basket-line', credential: 'user', summary: "Change a line's quantity", grants: { table: tables.linePricing } },
  { method: 'DELETE', path: '/basket/{basketGuid}/line/{lineId}', handler: 'delete-basket-line', credential: 'user', summary: 'Delete a line', grants: { table: tables.basketChange } },
  { method: 'POST', path: '/basket/{basketGuid}/checkout', handler: 'checkout-basket', credential: 'user', summary: 'Get a checkout URL for the basket', grants: { table: tables.basketCheckout } },

  { method: 'PUT', path: '/project/{projectGuid}', handler: 'put-project', credential: 'catalog', summary: 'Register or update a project price', grants: { table: tables.projectWrite } },
  { method: 'GET', path: '/project/{projectGuid}', handler: 'get-project', credential: 'catalog', summary: 'Read a project price', grants: { table: tables.projectRead } },

  { method: 'GET', path: '/checkout/{checkoutId}', handler: 'get-checkout', credential: 'site', summary: 'Read the basket snapshot a checkout charges for', grants: { table: tables.checkoutRead } },
  { method: 'POST', path: '/checkout/{checkoutId}/complete', handler: 'complete-checkout', credential: 'site', summary: 'Turn a paid checkout into an order (idempotent)', grants: { table: tables.checkoutComplete } },
  { method: 'GET', path: '/orders', handler: 'list-orders', credential: 'user', summary: "List the user's orders, optionally only those with a project", grants: { table: tables.orderRead } },
  { method: 'GET', path: '/order/{orderGuid}', handler: 'get-order', credential: 'user', summary: 'Read one order with its single-order fields', grants: { table: tables.orderRead } },
  { method: 'GET', path: '/order/{orderGuid}/artwork', handler: 'get-order-artwork', credential: 'fulfilment', summary: "Presigned downloads of the originals an order's lines print, a page of lines at a time", grants: { table: tables.orderArtwork, bucket: 'labRead', artworkLinks: true } },
  { method: 'GET', path: '/order/{orderGuid}/artwork/{itemGuid}', handler: 'follow-artwork-link', credential: 'none', summary: "An artwork item's DownloadLink: 307 to a fresh presigned GET of the original, no credential", grants: { table: tables.artworkLink, bucket: 'labRead', artworkLinks: true } },
  { method: 'PUT', path: '/order/{orderGuid}/status', handler: 'update-order-status', credential: 'fulfilment', summary: "Move an order along its status transitions", grants: { table: tables.orderStatus } },
  { method: 'POST', path: '/order/{orderGuid}/cancel', handler: 'cancel-order', credential: 'user', summary: "Cancel one of the user's orders before the lab starts on it", grants: { table: tables.orderCancel } },

  { method: 'POST', path: '/library/push', handler: 'push-library-item', credential: 'library', summary: 'Upload one image (multipart, part "image")', grants: { table: tables.libraryIngest, bucket: 'write' } },
  { method: 'POST', path: '/library/pull', handler: 'pull-library-item', credential: 'library', summary: 'Fetch one image from a URL', grants: { table: tables.libraryIngest, bucket: 'write' } },
  { method: 'POST', path: '/library/multi/push', handler: 'push-library-items', credential: 'library', summary: 'Upload several images (multipart)', grants: { table: tables.libraryIngest, bucket: 'write' } },
  { method: 'POST', path: '/library/multi/pull', handler: 'pull-library-items', credential: 'library', summary: 'Fetch several images from URLs', grants: { table: tables.libraryIngest, bucket: 'write' } },
  { method: 'POST', path: '/library/{itemGuid}/builder', handler: 'get-item-builder-url', credential: 'library', summary: 'Product builder URL for one library item', grants: { table: tables.library } },
  { method: 'POST', path: '/library/builder', handler: 'get-items-builder-url', credential: 'library', summary: 'Product builder URL for several library items', grants: { table: tables.library } },
  { method: 'POST', path: '/library/upload', handler: 'create-library-upload', credential: 'library', summary: 'Presigned S3 upload for an image above the push cap', grants: { table: tables.library, bucket: 'put' } },
  { method: 'GET', path: '/library/{itemGuid}', handler: 'get-library-item', credential: 'library', summary: 'Read one library item: image metadata, a download URL, optionally its print quality', grants: { table: tables.libraryRead, bucket: 'read' } },
  { method: 'GET', path: '/builder/{token}', handler: 'get-builder', credential: 'site', summary: 'Resolve a product builder URL token to its library items', grants: { table: tables.libraryRead, bucket: 'read' } },
  { method: 'POST', path: '/library/upload/{itemGuid}/complete', handler: 'complete-library-upload', credential: 'library', summary: 'Verify a presigned upload and add it to the library', grants: { table: tables.libraryIngest, bucket: 'readwrite' } },
  { method: 'POST', path: '/library/uploads', handler: 'start-multipart-upload', credential: 'library', summary: 'Start a resumable upload in parts (S3 multipart)', grants: { table: tables.library, bucket: 'multipart' } },
  { method: 'POST', path: '/library/uploads/{itemGuid}/parts', handler: 'sign-multipart-parts', credential: 'library', summary: 'Presigned PUT URLs for parts of a resumable upload', grants: { table: tables.library, bucket: 'multipart' } },
  { method: 'GET', path: '/library/uploads/{itemGuid}', handler: 'get-multipart-upload', credential: 'library', summary: 'A resumable upload and the parts stored so far (to resume)', grants: { table: tables.library, bucket: 'multipart' } },
  { method: 'POST', path: '/library/uploads/{itemGuid}/complete', handler: 'complete-multipart-upload', credential: 'library', summary: 'Assemble a resumable upload, check it and add it to the library', grants: { table: tables.libraryIngest, bucket: 'multipart' } },
  { method: 'DELETE', path: '/library/uploads/{itemGuid}', handler: 'abort-multipart-upload', credential: 'library', summary: 'Abort a resumable upload and remove its parts', grants: { table: tables.library, bucket: 'multipart' } },
  { method: 'POST', path: '/library/claim', handler: 'claim-library-items', credential: 'user', summary: "Move the items of a product builder URL into the user's library", grants: { table: tables.library, bucket: 'read' } },
  { method: 'GET', path: '/library', handler: 'list-library', credential: 'user', summary: "List the user's library items, newest first, a page at a time", grants: { table: tables.libraryRead, bucket: 'read' } },
  { method: 'DELETE', path: '/library/{itemGuid}', handler: 'delete-library-item', credential: 'user', summary: "Erase one of the user's library items: its records and its image (later, when a checkout or order holds it)", grants: { table: tables.libraryErase, bucket: 'delete' } },

  { method: 'POST', path: '/webhooks', handler: 'create-webhook', credential: 'apiKey', summary: 'Register a webhook: a URL that receives signed events of the types named', grants: { table: tables.webhookChange, webhookSecrets: 'seal' } },
  { method: 'GET', path: '/webhooks', handler: 'list-webhooks', credential: 'apiKey', summary: "List this key's webhooks", grants: { table: tables.webhookRead } },
  { method: 'GET', path: '/webhooks/{webhookId}', handler: 'get-webhook', credential: 'apiKey', summary: 'Read one of this key\'s webhooks', grants: { table: tables.webhookRead } },
  { method: 'PUT', path: '/webhooks/{webhookId}', handler: 'update-webhook', credential: 'apiKey', summary: "Change a webhook's URL, event types or status", grants: { table: tables.webhookChange, webhookDeliveries: true } },
  { method: 'DELETE', path: '/webhooks/{webhookId}', handler: 'delete-webhook', credential: 'apiKey', summary: 'Delete a webhook', grants: { table: tables.webhookChange } },
  { method: 'GET', path: '/webhooks/{webhookId}/deliveries', handler: 'list-webhook-deliveries', credential: 'apiKey', summary: "A webhook's deliveries, newest first, a page at a time, with their attempts", grants: { table: tables.deliveryLog } },
  { method: 'POST', path: '/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', handler: 'redeliver-webhook-delivery', credential: 'apiKey', summary: 'Send a delivery again: the same event and webhook-id, signed anew', grants: { table: tables.redelivery, webhookDeliveries: true } },
  { method: 'POST', path: '/webhooks/{webhookId}/secret', handler: 'rotate-webhook-secret', credential: 'apiKey', summary: "Rotate a webhook's signing secret (the old one signs too for 24 hours)", grants: { table: tables.webhookChange, webhookSecrets: 'seal' } },
];

/** Content types API Gateway must pass through as binary (base64) rather than as UTF-8 text. */
export const binaryMediaTypes: readonly string[] = ['multipart/form-data', 'image/*', 'application/octet-stream'];

/** API Gateway's resource path form for IAM resources: `{param}` becomes `*`. */
export function resourcePattern(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}`;
}
