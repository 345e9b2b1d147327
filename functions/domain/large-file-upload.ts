/**
 * The rules of a large-file upload's life, without AWS: an upload is pending until one complete call
 * claims it, verifies the object and records the result (decided); a decided upload may be finished again
 * (a retried complete answers the same) only while the sweeper cannot be at work on it.
 */
import { SWEEP_AFTER_MS } from './library.ts';

/** How long a complete call may hold an upload before another call may take it over (Lambda's timeout is shorter). */
const CLAIM_STALE_MS = 60 * 1000;

/**
 * How long after its presigned POST expired a decided upload may still be finished: half the sweep delay,
 * so a call that starts in time ends (29 s at most) long before the sweeper may look at the upload.
 */
const FINISH_WITHIN_MS = SWEEP_AFTER_MS / 2;

export interface UploadState {
  apiKeyId: string;
  expiresAt: number;
  /** Present once decided. */
  result?: unknown;
}

/**
 * What a complete call of `apiKeyId` at `now` does with the upload it read: `notFound` (none, another
 * key's, or too late), `finish` (decided: finish the same writes and answer the same), `verify` (pending:
 * claim it and verify the object).
 */
export function completionStep(
  upload: UploadState | undefined,
  apiKeyId: string,
  now: number,
): 'notFound' | 'finish' | 'verify' {
  if (!upload || upload.apiKeyId !== apiKeyId) return 'notFound';
  if (upload.result !== undefined) return now < upload.expiresAt + FINISH_WITHIN_MS ? 'finish' : 'notFound';
  return upload.expiresAt > now ? 'verify' : 'notFound';
}

/** A claim taken before this is stale: its call has died, and another call may take the upload over. */
export const claimStaleBefore = (now: number): number => now - CLAIM_STALE_MS;

/** When a pending upload that expires at `expiresAt` may be swept (the pending upload is the request's intent). */
export const uploadSweepAt = (expiresAt: number): number => expiresAt + SWEEP_AFTER_MS;
