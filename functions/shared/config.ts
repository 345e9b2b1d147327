/**
 * Environment configuration, read once per cold start (each variable on its first use: env-readers.ts). Every
 * variable is documented in docs/configuration.md; defaults are the ones that make `npm start` work.
 */
import { env, intEnv, listEnv, listEnvText, readOnce, requiredEnv } from './env-readers.ts';

/** The longest the fan-out may keep subscribers: a resume looks that long for deliveries a stale cache made wait. */
export const MAX_SUBSCRIBERS_CACHE_SECONDS = 300;

export const DEFAULT_CURRENCY = 'EUR';
/** The longest an artwork DownloadLink may live: a lab's print queue, not an archive. */
export const MAX_ARTWORK_LINK_DAYS = 30;

/**
 * An ISO 4217 code: three upper-case letters. Only the form is checked (`Intl.NumberFormat` formats any such
 * code, naming an unknown one by its letters); `setting` names where it came from in the refusal.
 */
export function currencyText(value: string, setting: string): string {
  if (!/^[A-Z]{3}$/.test(value))
    throw new Error(`${setting} must be an ISO 4217 currency code, three upper-case letters such as EUR, got ${value}`);
  return value;
}

export const config = readOnce({
  tableName: () => requiredEnv('TABLE_NAME'),
  bucketName: () => requiredEnv('BUCKET_NAME'),
  /**
   * Base of the separate checkout and product builder site; returned URLs are absolute on it. Required: a
   * local default would send AWS's users to loopback (the local stack sets its own site).
   */
  checkoutUrl: () => requiredEnv('CHECKOUT_URL').replace(/\/+$/, ''),
  /** The currency of every price (ISO 4217): one per service, as prices are registered without one. */
  currency: () => currencyText(env('CURRENCY') ?? DEFAULT_CURRENCY, 'environment variable CURRENCY'),
  basketTtlDays: () => intEnv('BASKET_TTL_DAYS', 60),
  /** Days a Completed order keeps holding its artwork (the reprint window); 0 ends the hold with the completion. */
  artworkHoldDays: () => intEnv('ARTWORK_HOLD_DAYS', 30),
  /** Days an artwork item's DownloadLink lives (1 to 30): the lab may follow it that long without a credential. */
  artworkLinkDays: () => {
    const days = intEnv('ARTWORK_LINK_DAYS', 14);
    if (days < 1 || days > MAX_ARTWORK_LINK_DAYS)
      throw new Error(`environment variable ARTWORK_LINK_DAYS must be 1 to ${MAX_ARTWORK_LINK_DAYS} (days)`);
    return days;
  },
  /** The KMS HMAC key (id, ARN or alias) the artwork links' daily signing keys are derived from. */
  artworkLinkKeyId: () => requiredEnv('ARTWORK_LINK_KEY_ID'),
  /** Hours an unpaid checkout holds its artwork: past them an erasure goes ahead and the checkout is closed. */
  checkoutHoldHours: () => intEnv('CHECKOUT_HOLD_HOURS', 24),
  /** Open (unexpired) baskets one user may have; creating one more answers 409 BasketQuotaExceeded. */
  maxOpenBasketsPerUser: () => intEnv('MAX_OPEN_BASKETS_PER_USER', 100),
  /** Pull (fetch by URL): loopback image servers are refused unless this is `true` (local development, tests). */
  pullAllowLoopback: () => env('PULL_ALLOW_LOOPBACK') === 'true',
  /**
   * Pull: the ports a public address may be fetched on (comma-separated, or `any`). Loopback, when
   * PULL_ALLOW_LOOPBACK allows it, takes any port: test and development image servers listen on random ones.
   */
  pullAllowedPorts: (): readonly number[] | 'any' => {
    const text = env('PULL_ALLOWED_PORTS') ?? '80,443';
    if (text.trim().toLowerCase() === 'any') return 'any';
    const ports = listEnvText(text).map(Number);
    if (ports.length === 0 || !ports.every((port) => Number.isInteger(port) && port >= 1 && port <= 65_535)) {
      throw new Error(
        'environment variable PULL_ALLOWED_PORTS must be port numbers (1-65535), comma-separated, or any',
      );
    }
    return ports;
  },
  /** Pull: the whole fetch of one URL (connect, redirects, body) must finish within this. */
  pullTimeoutMs: () => intEnv('PULL_TIMEOUT_MS', 10_000),
  /** Pull: the largest image fetched, checked against Content-Length and while streaming. */
  pullMaxBytes: () => intEnv('PULL_MAX_BYTES', 50 * 1024 * 1024),
  /** Pull: every fetch of one request ends by then, so the answer (a 4xx for a slow URL) beats API Gateway's 29 s limit. */
  pullRequestTimeoutMs: () => intEnv('PULL_REQUEST_TIMEOUT_MS', 25_000),
  /** Pull: URLs of one multi pull fetched at the same time. */
  pullConcurrency: () => intEnv('PULL_CONCURRENCY', 4),
  pullMaxRedirects: () => intEnv('PULL_MAX_REDIRECTS', 3),
  /**
   * Library: items (files or URLs) one push or pull request may carry. At most 97: a request commits in one
   * transaction of 100 actions, its items with its builder link, anonymous user and event.
   */
  libraryMaxItems: () => {
    const max = intEnv('LIBRARY_MAX_ITEMS', 20);
    if (max > 97) throw new Error('environment variable LIBRARY_MAX_ITEMS must be at most 97');
    return max;
  },
  /** Push: the largest multipart body (all files together); 4 MiB is 5.6 MB in base64, under Lambda's 6 MB. */
  pushMaxBytes: () => intEnv('PUSH_MAX_BYTES', 4 * 1024 * 1024),
  /** Large-file upload: the largest image a presigned upload may store. */
  uploadMaxBytes: () => intEnv('UPLOAD_MAX_BYTES', 100 * 1024 * 1024),
  /** Large-file upload: how long the presigned upload (and its pending record) stays valid. */
  uploadExpirySeconds: () => intEnv('UPLOAD_EXPIRY_SECONDS', 900),
  /**
   * Resumable upload: the largest file (FileSize) one may announce. At most 5 GiB: a completed file whose
   * declared type is not its own is re-typed by one CopyObject onto itself, which S3 allows up to 5 GiB.
   */
  multipartMaxBytes: () => {
    const max = intEnv('MULTIPART_MAX_BYTES', 2 * 1024 * 1024 * 1024);
    if (max > 5 * 1024 * 1024 * 1024)
      throw new Error('environment variable MULTIPART_MAX_BYTES must be at most 5368709120');
    return max;
  },
  /**
   * Resumable upload: uploads one API key may have open; one more is 409 UploadQuotaExceeded. At most 1,000:
   * they are listed in one item that every start, completion and abort of the key rewrites.
   */
  multipartMaxOpenPerKey: () => {
    const max = intEnv('MULTIPART_MAX_OPEN_PER_KEY', 100);
    if (max > 1000) throw new Error('environment variable MULTIPART_MAX_OPEN_PER_KEY must be at most 1000');
    return max;
  },
  /** Resumable upload: how long it stays open for parts and completion (ExpiresDateUtc); then it is swept. */
  multipartExpirySeconds: () => intEnv('MULTIPART_EXPIRY_SECONDS', 24 * 60 * 60),
  /** Resumable upload: how long one presigned part URL stays valid (never past the upload's expiry). */
  multipartPartUrlSeconds: () => intEnv('MULTIPART_PART_URL_SECONDS', 60 * 60),
  /** Library reads: how long a presigned download URL (DownloadUrl) stays valid. */
  downloadUrlSeconds: () => intEnv('DOWNLOAD_URL_SECONDS', 900),
  /** Print quality: the least effective pixels per inch rated Good, and Fair (below it: Poor). */
  printThresholds: () => ({ good: intEnv('PRINT_GOOD_PPI', 300), fair: intEnv('PRINT_FAIR_PPI', 150) }),
  /** Renditions: images with more pixels than this get none (Status Failed): decompression bombs stop here. */
  renditionMaxPixels: () => intEnv('RENDITION_MAX_PIXELS', 100_000_000),
  /** Renditions: each image pipeline (decode and resize, each encode) stops after this many seconds. */
  renditionTimeoutSeconds: () => intEnv('RENDITION_TIMEOUT_SECONDS', 60),
  /**
   * Renditions: an original larger than this is Failed without being read. 512 MiB: the function's 1769 MB
   * hold the runtime (about 150 MB), the original (read once) and the decoding of the largest image allowed
   * (RENDITION_MAX_PIXELS: up to about 1 GB, 100 megapixels as 16-bit RGBA or through libheif); figure 8c of
   * docs/performance.md measures it.
   */
  renditionMaxBytes: () => intEnv('RENDITION_MAX_BYTES', 512 * 1024 * 1024),
  /**
   * Renditions: a HEVC decode stops when the process holds more than this: nine tenths of the function's
   * memory (Lambda's AWS_LAMBDA_FUNCTION_MEMORY_SIZE), so a decode that runs away fails its item instead of
   * the function.
   */
  renditionMaxRssBytes: () => Math.floor(0.9 * intEnv('AWS_LAMBDA_FUNCTION_MEMORY_SIZE', 1769)) * 1024 * 1024,
  /** Renditions: deliveries of one commit's event before its items are marked Failed (the queue's maxReceiveCount). */
  renditionMaxAttempts: () => intEnv('RENDITION_MAX_ATTEMPTS', 3),
  /** Webhooks: `http://` to loopback receivers is allowed when this is `true` (local development, tests); otherwise https to public addresses only. */
  webhookAllowLoopback: () => env('WEBHOOK_ALLOW_LOOPBACK') === 'true',
  /** Webhooks: one delivery attempt (connect, send, answer) must finish within this. */
  webhookTimeoutMs: () => intEnv('WEBHOOK_TIMEOUT_MS', 10_000),
  /**
   * Webhooks: the delays in seconds before each retry of a failed delivery, after the first attempt
   * (comma-separated; `1,1,1` is four attempts). Each at most 12 hours (a chain of 52 delayed messages at
   * most: functions/webhooks/delivery-queue.ts), at most 15 retries.
   */
  webhookRetrySchedule: (): number[] => {
    const text = env('WEBHOOK_RETRY_SCHEDULE') ?? '5,300,1800,7200,18000,36000,36000';
    const delays = listEnvText(text).map(Number);
    if (delays.length > 15 || !delays.every((delay) => Number.isInteger(delay) && delay >= 0 && delay <= 43_200))
      throw new Error(
        'environment variable WEBHOOK_RETRY_SCHEDULE must be at most 15 delays in seconds (0-43200), comma-separated',
      );
    return delays;
  },
  /** Webhooks: a webhook whose deliveries failed this long without a success is paused (the stack setting `webhookPauseAfterMinutes`). */
  webhookPauseAfterMs: () => intEnv('WEBHOOK_PAUSE_AFTER_MINUTES', 15) * 60_000,
  /** Webhooks: a paused webhook is probed (one of its deliveries sent) once per this long. */
  webhookProbeIntervalMs: () => intEnv('WEBHOOK_PROBE_SECONDS', 300) * 1000,
  /** Webhooks: how long the fan-out keeps an event type's subscribers (0: read them for every event). */
  webhookSubscribersCacheMs: () => {
    const seconds = intEnv('WEBHOOK_SUBSCRIBERS_CACHE_SECONDS', 0);
    if (seconds > MAX_SUBSCRIBERS_CACHE_SECONDS)
      throw new Error(
        `environment variable WEBHOOK_SUBSCRIBERS_CACHE_SECONDS must be at most ${MAX_SUBSCRIBERS_CACHE_SECONDS}`,
      );
    return seconds * 1000;
  },
  /** Webhooks: the SQS queue the fan-out sends one message per delivery to. */
  webhookDeliveryQueueUrl: () => requiredEnv('WEBHOOK_DELIVERY_QUEUE_URL'),
  /** Webhooks: the KMS key (id, ARN or alias) that encrypts webhook secrets. */
  webhookKeyId: () => requiredEnv('WEBHOOK_KMS_KEY_ID'),
  /** The EventBridge bus domain events go to (AWS). */
  eventBusName: () => env('EVENT_BUS_NAME'),
  /** Local: the file domain events are appended to, one JSON line each, when no bus is set. */
  eventsFile: () => env('EVENTS_FILE'),
  /** Local stand-ins (DynamoDB Local, s3rver); unset in AWS. */
  dynamoDbEndpoint: () => env('DYNAMODB_ENDPOINT'),
  s3Endpoint: () => env('S3_ENDPOINT'),
  jwtIssuer: () => requiredEnv('JWT_ISSUER'),
  /** Accepted `aud` values (comma-separated). With JWT_CLIENT_IDS empty too, every token is refused. */
  jwtAudiences: (): string[] => listEnv('JWT_AUDIENCE'),
  /** Cognito app client ids whose access tokens (`token_use` access, no `aud`) are accepted (comma-separated). */
  jwtClientIds: (): string[] => listEnv('JWT_CLIENT_IDS'),
  /** Oldest accepted token, by its `iat`; 0 turns the check off (and `iat` is then optional). */
  jwtMaxAgeSeconds: () => intEnv('JWT_MAX_AGE_SECONDS', 86_400),
  /** Remote JWKS (Cognito, any OIDC provider). */
  jwtJwksUrl: () => env('JWT_JWKS_URL'),
  /** Local JWKS file (the key pair `npm start` generates under DATA_DIR). */
  jwtJwksFile: () => env('JWT_JWKS_FILE'),
  /**
   * The value of the API Gateway API key that refused credentials are counted under on API-key routes
   * (lib/constructs/api.ts); unset locally, where there is no usage plan.
   */
  refusedCredentialsUsageKey: () => env('REFUSED_CREDENTIALS_USAGE_KEY'),
  /** Browser origins allowed to call the API (comma-separated, exact `scheme://host[:port]`, or `*`); none by default. */
  corsAllowedOrigins: (): string[] => {
    return listEnv('CORS_ALLOWED_ORIGINS')
      .map((origin) => origin.replace(/\/+$/, ''))
      .filter((origin) => origin !== '');
  },
});
