/**
 * Every environment variable of the service, in the order docs/configuration.md lists them
 * (lib/doc-tables/configuration.ts makes that table from this and the code's reads): what it means, its default
 * where the read in the code does not show it, and who takes a value the shell running `npm start` sets.
 */
import { DEFAULT_CURRENCY } from '../functions/shared/config.ts';
import { CONSUMER_CONCURRENCY, MAX_CONCURRENCY_RANGE } from './consumer-concurrency.ts';
import { DEFAULT_THROTTLE } from './local/throttle.ts';

/** The row of a queue consumer's bound: AWS's default, and what `npm start` does with it. */
const boundDoc = (consumer: keyof typeof CONSUMER_CONCURRENCY, what: string): VariableDoc => {
  const { context, fallback } = CONSUMER_CONCURRENCY[consumer];
  return {
    default: `\`${fallback}\` in AWS; \`npm start\`: 2 unless set`,
    meaning: `${what} run at once (${MAX_CONCURRENCY_RANGE.min} to ${MAX_CONCURRENCY_RANGE.max}): the queue's event source \`maxConcurrency\` in AWS (the stack setting \`${context}\`, [Deploy](deploy.md#configuration)), so a burst waits in the queue instead of taking the API's share of the account's Lambda concurrency; set for \`npm start\`, the bound of its local queue, which otherwise works on 2 at a time (one machine runs every local function)`,
    npmStart: 'local',
  };
};

/**
 * Who takes the value a shell sets for `npm start`:
 * - `functions` (unless an entry says otherwise): every function. From source they read it in `npm start`'s own
 *   environment; from their assets (LOCAL_BUNDLES=1), where a function sees its template's environment only,
 *   `npm start` lays it over that (functionSettings).
 * - `local`: `npm start` alone (its server, front, storage, local EventBridge). Where a function reads the
 *   variable too, `npm start` gives it a value of its own (an endpoint, the issuer's key file).
 * - `stack`: each function's template (or Lambda) sets it; the local stack resolves it to what it runs (the
 *   table and bucket TABLE_NAME and BUCKET_NAME name, its own bus, queue and key), and lays no shell value over it.
 */
export type NpmStartScope = 'functions' | 'local' | 'stack';

export interface VariableDoc {
  /** The default as the document states it, for variables whose default is not in the read itself. */
  default?: string;
  meaning: string;
  /** Read by a library (Powertools), not by the service's code. */
  library?: true;
  npmStart?: Exclude<NpmStartScope, 'functions'>;
}

/**
 * What each variable means, in the table's order. The defaults of the variables whose read carries one come
 * from the code; a variable read by the code and missing here (or here and no longer read) fails generation.
 */
export const VARIABLES: Record<string, VariableDoc> = {
  PORT: {
    meaning:
      "local: port of the API. `npm start` checks it, the local site's port and `DYNAMODB_PORT`/`S3_PORT` before starting anything, and exits with one line naming a taken one and the variable to change",
    npmStart: 'local',
  },
  HOST: { meaning: 'local: address to listen on', npmStart: 'local' },
  DATA_DIR: {
    meaning:
      "local: where DynamoDB, S3 objects, signing keys and events persist. One `npm start` at a time: it holds `DATA_DIR/npm-start.lock` (its pid) while it runs, and a second start on the same folder exits with one line saying so (a lock whose process is gone, after a SIGKILL, is taken over). A CLI (`npm run api-key`, `seed`, `renditions`, `expire-ttl`) uses the running server's storage, or holds the same lock while it runs storage of its own",
    npmStart: 'local',
  },
  DYNAMODB_PORT: { default: 'free port', meaning: 'local: port of the embedded DynamoDB Local', npmStart: 'local' },
  S3_PORT: { default: 'free port', meaning: 'local: port of the embedded s3rver', npmStart: 'local' },
  CURRENCY: {
    default: `\`${DEFAULT_CURRENCY}\``,
    meaning:
      'ISO 4217 code (three upper-case letters) of every price: the service has one currency, and prices are registered without one. `GET /checkout/{checkoutId}` answers it as `Currency`. Anything else stops a function on first use and `npm start` before it starts; deployed, it is the stack setting `currency` ([Deploy](deploy.md#configuration)). Changing it relabels the registered prices: register them again in the new currency',
  },
  CHECKOUT_URL: {
    default: '`http://127.0.0.1:3001` (set by `npm start`; required in a function)',
    meaning:
      'base of the separate checkout and product builder site; returned URLs are absolute on it. A function without it fails rather than send users to loopback (the stack sets it). Local: when it is a loopback `http` origin, `npm start` serves the [local stand-in site](api.md#the-local-checkout-and-product-builder-site) there',
  },
  LOCAL_BUNDLES: {
    meaning:
      "local: `1` runs every function from its synthesized asset in `cdk.out.local` (the local stack's own assembly) instead of from source ([Testing: the deployed code](testing.md#the-deployed-code-local_bundles1))",
    npmStart: 'local',
  },
  BASKET_TTL_DAYS: { meaning: 'a basket untouched this long (days) expires' },
  ARTWORK_HOLD_DAYS: {
    meaning:
      "the reprint window: days a `Completed` order keeps holding its artwork (an erasure of its items waits that long after the completion); `0` ends the hold with the completion. A `Cancelled` order's hold ends at once, an unpaid checkout's when it expires or `CHECKOUT_HOLD_HOURS` pass",
  },
  ARTWORK_LINK_DAYS: {
    meaning:
      "days an artwork item's `DownloadLink` lives (1 to 30): the lab follows it without a credential that long, each time to a fresh presigned GET. Anything else stops the artwork read and the link's function on first use",
  },
  ARTWORK_LINK_KEY_ID: {
    default: "— (set by the stack; `npm start`: the local KMS stand-in's HMAC key alias)",
    meaning: "KMS HMAC key (id, ARN or alias) whose MAC of each day's name is that day's key for signing artwork links",
    npmStart: 'stack',
  },
  CHECKOUT_HOLD_HOURS: {
    meaning:
      "hours an unpaid checkout holds its artwork: an erasure of one of its items asked later goes ahead at once and closes the checkout (completing it is then 409 `ArtworkErased`); one asked earlier waits until the checkout is paid and its order's hold ends, or it expires",
  },
  MAX_OPEN_BASKETS_PER_USER: {
    meaning: 'open (unexpired, not ordered) baskets one user may have; one more is 409 `BasketQuotaExceeded`',
  },
  TABLE_NAME: {
    default: '`photo-commerce` (set by `npm start`; required in a function)',
    meaning: 'the DynamoDB table',
    npmStart: 'stack',
  },
  BUCKET_NAME: {
    default: '`photo-commerce-images` (set by `npm start`; required in a function)',
    meaning: 'the S3 bucket for image bytes',
    npmStart: 'stack',
  },
  JWT_ISSUER: {
    default: 'local issuer (set by `npm start`; required in a function)',
    meaning: 'expected `iss` of bearer tokens',
  },
  JWT_AUDIENCE: {
    default: '`photo-commerce-api` (set by `npm start`)',
    meaning:
      'accepted `aud` values of bearer tokens, comma-separated. With `JWT_CLIENT_IDS` also unset, every token is refused',
  },
  JWT_CLIENT_IDS: {
    meaning:
      'Cognito app client ids, comma-separated: an access token (no `aud`) is accepted when its `token_use` is `access` and its `client_id` is listed',
  },
  JWT_MAX_AGE_SECONDS: {
    meaning: 'oldest accepted token by its `iat` (which is then required); `0`: no limit, `iat` optional',
  },
  JWT_JWKS_URL: {
    meaning:
      "the issuer's JWKS, https only (Cognito: `https://cognito-idp.<region>.amazonaws.com/<pool>/.well-known/jwks.json`)",
  },
  REFUSED_CREDENTIALS_USAGE_KEY: {
    meaning:
      'AWS, set by the stack: the API Gateway key (library usage plan) that refused credentials on API-key routes are counted under',
    npmStart: 'stack',
  },
  JWT_JWKS_FILE: {
    default: '`DATA_DIR/keys/jwks.json` (set by `npm start`)',
    meaning: "local: the local issuer's public keys",
    npmStart: 'local',
  },
  DYNAMODB_ENDPOINT: {
    default: 'set by `npm start`',
    meaning: 'local: the DynamoDB Local stand-in; unset in AWS',
    npmStart: 'local',
  },
  S3_ENDPOINT: {
    default: 'set by `npm start`',
    meaning: 'local: the s3rver stand-in; unset in AWS',
    npmStart: 'local',
  },
  POWERTOOLS_LOG_LEVEL: {
    default: '`INFO` (set by the stack)',
    meaning: "log level of the structured JSON logs (read by Powertools' logger)",
    library: true,
  },
  POWERTOOLS_SERVICE_NAME: {
    default: '`photo-commerce`',
    meaning:
      'the `service` of every log line and metric, and the `source` of the domain events (the stack sets the default)',
  },
  POWERTOOLS_METRICS_NAMESPACE: {
    default: '`PhotoCommerce`',
    meaning: 'CloudWatch namespace of the embedded-metric-format metrics (the stack sets the default)',
  },
  POWERTOOLS_METRICS_DISABLED: {
    default: '`true` locally (set by `npm start`), unset in AWS',
    meaning: 'embedded-metric-format output (on in AWS)',
  },
  EVENT_BUS_NAME: {
    default: '— (set by the stack)',
    meaning: 'EventBridge bus the domain events go to',
    npmStart: 'stack',
  },
  EVENTS_FILE: {
    default: '`DATA_DIR/events.jsonl` locally (set by `npm start`)',
    meaning:
      'local: file the domain events are appended to as JSON lines (used when `EVENT_BUS_NAME` is unset; with neither set, publishing fails, so a function whose template forgot its bus never drops an event)',
    npmStart: 'local',
  },
  LIBRARY_MAX_ITEMS: {
    meaning:
      'images (files or URLs) one push or pull request may carry; at most 97 (a request commits in one transaction of at most 100 actions: its items, builder link, anonymous user and event)',
  },
  PUSH_MAX_BYTES: {
    meaning:
      "largest push body, all parts together; 4 MiB is 5.6 MB in base64, under Lambda's 6 MB request limit — do not raise it above ~4.4 MiB",
  },
  UPLOAD_MAX_BYTES: {
    meaning:
      "largest image a presigned upload may store (the policy's `content-length-range`, checked again on completion)",
  },
  UPLOAD_EXPIRY_SECONDS: { meaning: 'how long a presigned upload, and its pending record, stay valid' },
  MULTIPART_MAX_BYTES: {
    meaning:
      "largest file a resumable upload (`POST /library/uploads`) may announce; more is 413. At most `5368709120` (5 GiB): a file whose declared type is not its own is re-typed by one CopyObject onto itself, which S3 allows up to 5 GiB. Parts are 5 MiB (or the next whole MiB that keeps 10,000 parts); the completion's time grows with the size (docs/performance.md)",
  },
  MULTIPART_MAX_OPEN_PER_KEY: {
    meaning:
      'resumable uploads one API key may have open at once (started, not yet completed, refused, aborted or expired); one more is 409 `UploadQuotaExceeded`. At most 1000: they are listed in one item that every start, completion and abort of the key rewrites',
  },
  MULTIPART_EXPIRY_SECONDS: {
    meaning:
      "how long a resumable upload stays open for parts and completion (`ExpiresDateUtc`); the sweeper aborts it an hour later. Keep it at most a day: the bucket's lifecycle rule aborts multipart uploads older than that",
  },
  MULTIPART_PART_URL_SECONDS: {
    meaning: "how long one presigned part URL stays valid (never past the upload's expiry)",
  },
  DOWNLOAD_URL_SECONDS: {
    meaning:
      "how long the presigned `DownloadUrl` of `GET /library/{itemGuid}` and `GET /builder/{token}` stays valid (S3 caps it at 7 days, and at the signing role's session in Lambda)",
  },
  PRINT_GOOD_PPI: {
    meaning: 'print quality: the least effective pixels per inch rated `Good` (see [API](api.md#print-quality))',
  },
  PRINT_FAIR_PPI: { meaning: 'print quality: the least rated `Fair`; below it is `Poor`' },
  WEBHOOK_ALLOW_LOOPBACK: {
    meaning:
      '`true` lets webhooks use `http://` to loopback receivers (127.0.0.0/8, ::1): local development and tests only. Otherwise a webhook URL is `https://` to public addresses only; a URL refused for loopback alone names this switch',
  },
  WEBHOOK_TIMEOUT_MS: {
    meaning:
      "webhooks: one delivery attempt (connect, send, the answer's status) must finish within this; a slower receiver is a failed attempt, retried on the schedule",
  },
  WEBHOOK_RETRY_SCHEDULE: {
    default: '`5,300,1800,7200,18000,36000,36000` (Standard Webhooks: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h)',
    meaning:
      'webhooks: the delays in seconds before each retry of a failed delivery, after the first attempt (`1,1,1` is four attempts); each at most 43200 (SQS holds a message up to 12 hours), at most 15. After the last, the delivery is `Failed`',
  },
  WEBHOOK_PAUSE_AFTER_MINUTES: {
    meaning:
      'webhooks: a webhook whose deliveries failed this long without a success is paused: its deliveries wait (`State: "Paused"`), one probe goes out every `WEBHOOK_PROBE_SECONDS`, and the first success queues them again, oldest first; the stack setting `webhookPauseAfterMinutes` (1 to 1440, [Deploy](deploy.md#configuration))',
  },
  WEBHOOK_PROBE_SECONDS: {
    meaning: 'webhooks: how often a paused webhook is probed (one of its waiting deliveries sent)',
  },
  WEBHOOK_SUBSCRIBERS_CACHE_SECONDS: {
    default: '`10` in AWS (the stack setting `webhookSubscribersCacheSeconds`, 0 to 300); `npm start`: 0 unless set',
    meaning:
      "webhooks: how long the fan-out keeps an event type's subscribers: a new webhook hears events, and a pause's start or end is seen, that much later at most; a deleted or disabled one is never sent to, but its log may get deliveries ended `not sent` that long",
  },
  LOCAL_SQS_MAX_IN_FLIGHT: {
    default: 'unbounded',
    meaning:
      'local: messages each local queue has in flight (received, not deleted, not visible again) at most, past which it hands out nothing, as SQS does at about 120,000 for a standard queue; a low value shows that a webhook receiver that keeps failing does not stall the others (its retries wait delayed, not in flight)',
    npmStart: 'local',
  },
  WEBHOOK_MAX_CONCURRENCY: boundDoc('webhookDeliveries', 'webhooks: deliveries'),
  WEBHOOK_DELIVERY_QUEUE_URL: {
    default: '— (set by the stack; `npm start`: its local queue)',
    meaning:
      'webhooks: the SQS queue the fan-out sends one message per delivery to, and the delivery function sends each retry to, delayed',
    npmStart: 'stack',
  },
  WEBHOOK_KMS_KEY_ID: {
    default: "— (set by the stack; `npm start`: the local KMS stand-in's alias)",
    meaning:
      'KMS key (id, ARN or alias) that encrypts webhook signing secrets, with the webhook id as encryption context',
    npmStart: 'stack',
  },
  WEBHOOK_FANOUT_MAX_CONCURRENCY: boundDoc('webhookFanout', 'webhooks: fan-outs (one per subscribable event)'),
  PULL_ALLOW_LOOPBACK: {
    meaning:
      '`true` lets pull fetch from loopback (127.0.0.0/8, ::1), on any port: local development and tests only. Every other internal address stays refused. A pull refused for loopback alone names this switch',
  },
  PULL_ALLOWED_PORTS: {
    meaning:
      'ports pull may connect to on public addresses, comma-separated, or `any`. Loopback (when allowed) takes any port',
  },
  PULL_TIMEOUT_MS: {
    meaning:
      "one URL's whole fetch (DNS, connect, redirects, headers and body, which streams into S3) must finish within this",
  },
  PULL_REQUEST_TIMEOUT_MS: {
    meaning:
      "every fetch of one request ends by then (each URL's deadline is cut to what is left), so a pull answers a 4xx before API Gateway's 29 s limit turns it into a 504",
  },
  PULL_MAX_BYTES: {
    meaning:
      'largest pulled image: a larger `Content-Length` is refused before the body is read, and the count is checked while streaming',
  },
  PULL_CONCURRENCY: { meaning: 'URLs of one multi pull fetched at the same time' },
  PULL_MAX_REDIRECTS: { meaning: 'redirects followed per URL, each vetted like the first URL' },
  RENDITION_MAX_PIXELS: {
    meaning:
      'renditions: an image whose decoding would produce more pixels gets none, `Status: "Failed"` (counted from the whole file before any decode: for a HEIF grid every tile it is made of, whatever its crop displays); decompression bombs stop here. Raise it only with the renditions function\'s memory (figure 8b)',
  },
  RENDITION_MAX_BYTES: {
    meaning:
      'renditions: an original larger than this is `Failed` without being read. The function holds the original whole; 512 MiB leaves its 1769 MB room for the runtime and the decoding of a `RENDITION_MAX_PIXELS` image (docs/design.md, "giant originals")',
  },
  RENDITION_TIMEOUT_SECONDS: {
    meaning:
      'renditions: each decode (a HEVC one in its worker thread, stopped there) and each image pipeline (decode and resize, each encode) stops after this long, and the image is `Failed`',
  },
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: {
    default: "`1769` (set by Lambda: the function's memory)",
    meaning:
      "renditions: a HEVC decode stops when the function's process passes nine tenths of this many MB, so a decode that runs away fails its item instead of the function",
    npmStart: 'stack',
  },
  RENDITION_MAX_ATTEMPTS: {
    default: "`3` (set by the stack to the queue's maxReceiveCount)",
    meaning:
      'renditions: the delivery of a `LibraryItemsAdded` message that records `Failed` instead of failing again when renditions cannot be made for a reason other than the image (storage)',
    npmStart: 'stack',
  },
  RENDITIONS_MAX_CONCURRENCY: boundDoc('renditions', 'renditions: `LibraryItemsAdded` messages'),
  CORS_ALLOWED_ORIGINS: {
    default: '— (no CORS)',
    meaning:
      'browser origins allowed to call the API, comma-separated, exact `scheme://host[:port]`, or `*` ([Security: CORS](security.md#cors)); the stack reads it too',
  },
  THROTTLE_RATE_PER_SECOND: {
    default: `\`${DEFAULT_THROTTLE.ratePerSecond}\``,
    meaning:
      'local front: steady requests per second per API key and per user ([Security: Throttling](security.md#throttling)); the stack reads it for the usage plans',
    npmStart: 'local',
  },
  THROTTLE_BURST: {
    default: `\`${DEFAULT_THROTTLE.burst}\``,
    meaning: 'local front: requests one caller may send at once before the rate applies; the stack reads it too',
    npmStart: 'local',
  },
};

export const npmStartScope = (name: string): NpmStartScope => VARIABLES[name]?.npmStart ?? 'functions';

/**
 * The variables of `shell` (the environment `npm start` was started with) that the functions take: `npm start`
 * lays them over each bundled function's template environment (LOCAL_BUNDLES=1), so that a setting reaches the
 * functions from their assets as it does from source.
 */
export function functionSettings(shell: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.keys(VARIABLES).flatMap((name) => {
      const value = shell[name];
      return value !== undefined && npmStartScope(name) === 'functions' ? [[name, value]] : [];
    }),
  );
}
