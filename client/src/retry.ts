/**
 * Whether a failed attempt is tried again and after how long: the service's `Retry-After` when it sends
 * one, else exponential backoff with jitter.
 */
import type { ApiError } from './errors.ts';

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date. */
export function retryAfterOf(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Exponential backoff with jitter: half the doubled step fixed, half random, so retries of many clients spread. */
export const backoffMs = (retry: number) => {
  const step = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
  return step / 2 + Math.random() * (step / 2);
};

/** Throttled, briefly unavailable, or the service says the same request may succeed later. */
export const isRetryableAnswer = (error: ApiError) => error.status === 429 || error.status === 503 || error.retryable;
