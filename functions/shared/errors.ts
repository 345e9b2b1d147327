/**
 * Errors the domain, services and stores throw: what went wrong (its kind), a machine-readable code, a
 * message for people and optional details, with no HTTP in sight. The HTTP edge maps each kind to its
 * status in one table (functions/http/errors.ts) and answers `{ "Error": { "Code", "Message", ...details } }`;
 * anything else becomes a 500 that reveals nothing internal.
 */
export type ErrorKind =
  /** The request is malformed or breaks a rule of its own (bad field, bad cursor). */
  | 'Invalid'
  | 'Forbidden'
  | 'NotFound'
  /** The request clashes with the current state (wrong status, wrong version, quota, key in use). */
  | 'Conflict'
  /** What the request names existed and is gone for good (an expired or dead link). */
  | 'Gone'
  /** Well-formed, but what it points at cannot be used (a URL that is refused or fails, a reused key). */
  | 'Unprocessable'
  | 'TooLarge'
  | 'UnsupportedMedia'
  | 'TooManyRequests'
  /** Transient (throttling, contention): the same request may succeed when retried. */
  | 'Unavailable';

export class DomainError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  /** Extra machine-readable detail (e.g. failed indexes of a multi upload). */
  readonly details: Record<string, unknown> | undefined;
  /** Set when the same request may be retried after this many seconds (answered as Retryable and Retry-After). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    kind: ErrorKind,
    code: string,
    message: string,
    options: { details?: Record<string, unknown>; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = code;
    this.kind = kind;
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new DomainError('Invalid', code, message, details ? { details } : {});
/** A credential of another kind than the route takes (functions/auth/refusal.ts words the message). */
export const forbidden = (message: string) => new DomainError('Forbidden', 'Forbidden', message);
export const notFound = (code: string, message: string) => new DomainError('NotFound', code, message);
export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new DomainError('Conflict', code, message, details ? { details } : {});
/** A link whose signature is not the service's for what it says (changed, or made up). */
export const forbiddenLink = () =>
  new DomainError(
    'Forbidden',
    'InvalidLink',
    'This link is not one the service signed; use the link as it was answered.',
  );
export const gone = (code: string, message: string) => new DomainError('Gone', code, message);
export const unprocessable = (code: string, message: string) => new DomainError('Unprocessable', code, message);
export const payloadTooLarge = (message: string) => new DomainError('TooLarge', 'PayloadTooLarge', message);
export const unsupportedMediaType = (message: string) =>
  new DomainError('UnsupportedMedia', 'UnsupportedMediaType', message);
/** A transient failure (throttling, contention): the client may retry the same request. */
export const serviceUnavailable = (message: string, code = 'ServiceUnavailable') =>
  new DomainError('Unavailable', code, message, { retryAfterSeconds: 1 });

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
  const { $metadata, $retryable, code } = error as Error & {
    $metadata?: { httpStatusCode?: number };
    $retryable?: unknown;
    code?: string;
  };
  const status = $metadata?.httpStatusCode ?? 0;
  return (
    TRANSIENT_AWS_ERRORS.has(error.name) ||
    TRANSIENT_NETWORK_CODES.has(code ?? '') ||
    status === 429 ||
    status >= 500 ||
    $retryable !== undefined
  );
}
