/**
 * Typed errors the domain and stores throw; the HTTP layer maps each to its status and the JSON body
 * `{ "Error": { "Code", "Message" } }`. Anything else becomes a 500 that reveals nothing internal.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra machine-readable detail (e.g. failed indexes of a multi upload). */
  readonly details: Record<string, unknown> | undefined;
  /** Response headers to send with the error (e.g. Retry-After). */
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, code: string, message: string, options: { details?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = code;
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(400, code, message, details ? { details } : {});
export const unauthorized = (message = 'Missing or invalid credentials.') => new ApiError(401, 'Unauthorized', message);
export const forbidden = (message = 'This credential may not call this endpoint.') => new ApiError(403, 'Forbidden', message);
export const notFound = (code: string, message: string) => new ApiError(404, code, message);
export const conflict = (code: string, message: string) => new ApiError(409, code, message);
export const payloadTooLarge = (message: string) => new ApiError(413, 'PayloadTooLarge', message);
export const unsupportedMediaType = (message: string) => new ApiError(415, 'UnsupportedMediaType', message);
/** A transient failure (throttling, contention): the client may retry the same request. */
export const serviceUnavailable = (message: string, code = 'ServiceUnavailable') =>
  new ApiError(503, code, message, { details: { Retryable: true }, headers: { 'Retry-After': '1' } });

/** AWS error names that mean "too busy" or "no answer in time", as the SDK's own retry classifies them. */
const TRANSIENT_AWS_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'SlowDown',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalServerError',
  'ServiceUnavailable',
]);
const TRANSIENT_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/**
 * True for an AWS SDK failure that outlived the SDK's own bounded retries but says nothing about the
 * request itself: throttling, a timeout, a dropped connection or a 5xx from the service.
 */
export function isTransientAwsError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { $metadata, $retryable, code } = error as Error & { $metadata?: { httpStatusCode?: number }; $retryable?: unknown; code?: string };
  const status = $metadata?.httpStatusCode ?? 0;
  return TRANSIENT_AWS_ERRORS.has(error.name) || TRANSIENT_NETWORK_CODES.has(code ?? '') || status === 429 || status >= 500 || $retryable !== undefined;
}
