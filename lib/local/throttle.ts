/**
 * Per-caller throttling for the local front: one token bucket per API key and one per user, with the
 * rate and burst that the AWS usage plan gets (THROTTLE_RATE_PER_SECOND / THROTTLE_BURST). A request
 * over the limit is answered 429 with Retry-After, as API Gateway does.
 */
import { DomainError } from '../../functions/shared/errors.ts';
import { GATEWAY_ANSWERS } from '../../functions/http/gateway-answers.ts';

export interface ThrottleSettings {
  /** Steady requests per second, per caller (fractions allowed, as in a usage plan). */
  ratePerSecond: number;
  /** Requests a caller may send at once before the rate applies. */
  burst: number;
}

/** Generous on purpose: they stop a runaway client, not a benchmark. The CDK usage plan uses the same. */
export const DEFAULT_THROTTLE: ThrottleSettings = { ratePerSecond: 500, burst: 1000 };

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new Error(`environment variable ${name} must be a positive number`);
  return parsed;
}

export function throttleSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ThrottleSettings {
  return {
    ratePerSecond: positiveNumber(env, 'THROTTLE_RATE_PER_SECOND', DEFAULT_THROTTLE.ratePerSecond),
    burst: Math.max(1, Math.floor(positiveNumber(env, 'THROTTLE_BURST', DEFAULT_THROTTLE.burst))),
  };
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Bounds memory when many distinct callers pass by: full buckets carry no state worth keeping. */
const MAX_TRACKED_CALLERS = 10_000;

export class Throttle {
  readonly settings: ThrottleSettings;
  readonly #buckets = new Map<string, Bucket>();

  constructor(settings: ThrottleSettings) {
    this.settings = settings;
  }

  #refilled(bucket: Bucket, now: number): number {
    return Math.min(
      this.settings.burst,
      bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.settings.ratePerSecond,
    );
  }

  /** Takes one request from each caller's bucket, or from none of them with a 429 when any is empty. */
  take(callers: readonly string[], now = Date.now()): void {
    const levels = callers.map((caller) => {
      const bucket = this.#buckets.get(caller);
      return { caller, tokens: bucket ? this.#refilled(bucket, now) : this.settings.burst };
    });
    const empty = levels.find((level) => level.tokens < 1);
    if (empty) {
      const retryAfter = Math.max(1, Math.ceil((1 - empty.tokens) / this.settings.ratePerSecond));
      const { code, message } = GATEWAY_ANSWERS.Throttled;
      throw new DomainError('TooManyRequests', code, message, { retryAfterSeconds: retryAfter });
    }
    if (this.#buckets.size >= MAX_TRACKED_CALLERS) this.#forgetFullBuckets(now);
    for (const { caller, tokens } of levels) this.#buckets.set(caller, { tokens: tokens - 1, updatedAt: now });
  }

  #forgetFullBuckets(now: number): void {
    for (const [caller, bucket] of this.#buckets)
      if (this.#refilled(bucket, now) >= this.settings.burst) this.#buckets.delete(caller);
  }
}

/** The callers a request counts against, from the authorizer context: its API key and its user. */
export function callersOf(context: Record<string, unknown> | null | undefined): string[] {
  const callers: string[] = [];
  if (typeof context?.apiKeyId === 'string') callers.push(`apikey:${context.apiKeyId}`);
  if (typeof context?.userId === 'string') callers.push(`user:${context.userId}`);
  return callers;
}
