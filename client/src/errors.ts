/** What the client throws: `ApiError` for an error answer, `ConnectionError` / `TimeoutError` when none came. */

/** One failed item of a multi push or pull (`Error.Failures`). */
export interface ItemFailure {
  Index: number;
  Code: string;
  Reason: string;
}

/** Base class of everything the client throws itself (an aborted call rejects with the signal's reason). */
export class PhotoCommerceError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The service answered with an error: `{ "Error": { "Code", "Message", ...extra } }`. */
export class ApiError extends PhotoCommerceError {
  /** HTTP status. */
  readonly status: number;
  /** `Error.Code`, e.g. `ValidationFailed`, `BasketNotFound`. */
  readonly code: string;
  /** Request fields at fault (`Error.Fields`), e.g. `["Quantity"]`. */
  readonly fields: string[] | undefined;
  /** Failed items of a multi call (`Error.Failures`), by request index. */
  readonly failures: ItemFailure[] | undefined;
  /** The service says the same request may succeed later (`Error.Retryable`). */
  readonly retryable: boolean;
  /** Milliseconds the service asked to wait (`Retry-After`), if it did. */
  readonly retryAfterMs: number | undefined;
  /** The whole `Error` object, including fields this client version does not know. */
  readonly details: Readonly<Record<string, unknown>>;
  /** `x-amzn-RequestId`, for support requests. */
  readonly requestId: string | undefined;

  constructor(
    status: number,
    details: Record<string, unknown>,
    options: { retryAfterMs?: number | undefined; requestId?: string | undefined } = {},
  ) {
    super(typeof details.Message === 'string' ? details.Message : `HTTP ${status}`);
    this.status = status;
    this.code = typeof details.Code === 'string' ? details.Code : `Http${status}`;
    this.fields = Array.isArray(details.Fields) ? (details.Fields as string[]) : undefined;
    this.failures = Array.isArray(details.Failures) ? (details.Failures as ItemFailure[]) : undefined;
    this.retryable = details.Retryable === true;
    this.retryAfterMs = options.retryAfterMs;
    this.details = details;
    this.requestId = options.requestId;
  }
}

/** No answer: the connection failed or broke. `cause` is the platform's error. */
export class ConnectionError extends PhotoCommerceError {}

/** No answer within `timeoutMs` (on the last attempt). */
export class TimeoutError extends ConnectionError {}
