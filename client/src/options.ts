/**
 * What a client is made with (`ClientOptions`), what one call may change (`CallOptions`), and what
 * `onRetry` is told: the public options, apart from the transport that honours them.
 */
import type { OperationId } from './generated/api.ts';
import type { ApiError, ConnectionError } from './errors.ts';

/** What a client does where its options say nothing (documented on each option below). */
export const DEFAULT_OPTIONS = { timeoutMs: 30_000, maxRetries: 2, maxRetryAfterMs: 60_000 } as const;

export interface ClientOptions {
  /** The service's base URL, e.g. `https://api.example.com/prod` or `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** Bearer token for the user endpoints, or a function giving one (called before every attempt, so it may refresh). */
  token?: string | (() => string | Promise<string>);
  /** API key (`X-SERVICE-API-Key`) for the key endpoints; a key opens the endpoints of its scope only (library, site, catalog or fulfilment), so a caller holding two scopes makes a client per key. */
  apiKey?: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /** Milliseconds one attempt may take, answer body included (default 30 000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** Longest `Retry-After` the client waits; a longer one ends the call with the error (default 60 000). */
  maxRetryAfterMs?: number;
  /** Told before each retry (for logging). */
  onRetry?: (retry: RetryInfo) => void;
}

export interface RetryInfo {
  operation: OperationId;
  /** The attempt about to be made: 2 for the first retry. */
  attempt: number;
  delayMs: number;
  /** Why: the error answer or the connection failure. */
  error: ApiError | ConnectionError;
}

/** Per call. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  /** Your own key for a creating call (default: a new UUID per call, reused by its retries). */
  idempotencyKey?: string;
}
