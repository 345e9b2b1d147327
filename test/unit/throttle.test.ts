import { describe, expect, it } from 'vitest';
import { DEFAULT_THROTTLE, Throttle, callersOf, throttleSettingsFromEnv } from '../../lib/local/throttle.ts';
import { errorResponse } from '../../functions/http/errors.ts';

/** The answer a refused `take` gives (its status and headers), or undefined when it was allowed. */
const refusal = (action: () => void): { status: number; retryAfter: string | undefined } | undefined => {
  try {
    action();
    return undefined;
  } catch (error) {
    const answer = errorResponse(error);
    return { status: answer.statusCode, retryAfter: answer.headers?.['Retry-After'] as string | undefined };
  }
};

describe('token bucket throttle', () => {
  it('allows the burst at once, then the steady rate, and says when to come back', () => {
    const throttle = new Throttle({ ratePerSecond: 2, burst: 4 });
    const t0 = 1_000_000;
    for (let i = 0; i < 4; i++) throttle.take(['user:a'], t0);
    const refused = refusal(() => throttle.take(['user:a'], t0));
    expect(refused?.status).toBe(429);
    expect(refused?.retryAfter).toBe('1');
    throttle.take(['user:a'], t0 + 500); // 0.5 s at 2/s refills one request
    expect(refusal(() => throttle.take(['user:a'], t0 + 500))?.status).toBe(429);
    // A long pause refills up to the burst, never beyond.
    for (let i = 0; i < 4; i++) throttle.take(['user:a'], t0 + 60_000);
    expect(refusal(() => throttle.take(['user:a'], t0 + 60_000))?.status).toBe(429);
  });

  it('rounds Retry-After up for slow rates', () => {
    const throttle = new Throttle({ ratePerSecond: 0.1, burst: 1 });
    throttle.take(['apikey:k'], 0);
    expect(refusal(() => throttle.take(['apikey:k'], 0))?.retryAfter).toBe('10');
  });

  it('charges every caller of a request, or none of them when one is empty', () => {
    const throttle = new Throttle({ ratePerSecond: 1, burst: 1 });
    throttle.take(['user:a'], 0);
    expect(refusal(() => throttle.take(['apikey:k', 'user:a'], 0))?.status).toBe(429);
    throttle.take(['apikey:k'], 0); // the key's token was not spent by the refused request
  });

  it('reads its limits from the environment, with generous defaults', () => {
    expect(throttleSettingsFromEnv({})).toEqual(DEFAULT_THROTTLE);
    expect(throttleSettingsFromEnv({ THROTTLE_RATE_PER_SECOND: '0.5', THROTTLE_BURST: '7' })).toEqual({
      ratePerSecond: 0.5,
      burst: 7,
    });
    expect(() => throttleSettingsFromEnv({ THROTTLE_RATE_PER_SECOND: '0' })).toThrow(/THROTTLE_RATE_PER_SECOND/);
    expect(() => throttleSettingsFromEnv({ THROTTLE_BURST: 'lots' })).toThrow(/THROTTLE_BURST/);
  });

  it('counts a request against its API key and its user', () => {
    expect(callersOf({ apiKeyId: 'k1', userId: 'u1', principalId: 'u1' })).toEqual(['apikey:k1', 'user:u1']);
    expect(callersOf(null)).toEqual([]);
  });
});
