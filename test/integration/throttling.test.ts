/**
 * Per-caller throttling in the local front, with limits low enough to hit: over the burst a caller gets
 * 429 with Retry-After and the JSON error body, other callers are untouched, and a throttled request
 * never reaches its handler. (The steady refill is covered with explicit clocks in test/unit/throttle.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const BURST = 3;
let service: TestService;

beforeAll(async () => {
  // One request per 1000 s after the burst: no refill can happen while this file runs.
  service = await startTestService({ env: { THROTTLE_RATE_PER_SECOND: '0.001', THROTTLE_BURST: String(BURST) } });
});
afterAll(() => service?.close());

describe('throttling per credential', () => {
  it('answers 429 with Retry-After once a user has spent the burst, and not for other users', async () => {
    const alice = await service.token('throttle-alice');
    const statuses = [];
    for (let i = 0; i < BURST; i++) statuses.push((await service.request('GET', '/baskets', { token: alice })).status);
    expect(statuses).toEqual(Array(BURST).fill(200));

    const throttled = await service.request('GET', '/baskets', { token: alice });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(throttled.body).toEqual({
      Error: { Code: 'TooManyRequests', Message: expect.any(String), Retryable: true },
    });
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const bob = await service.token('throttle-bob');
    expect((await service.request('GET', '/baskets', { token: bob })).status).toBe(200);
  });

  it('throttles per API key: a second key keeps its own budget', async () => {
    const first = await service.apiKey('throttle-a', 'catalog');
    const second = await service.apiKey('throttle-b', 'catalog');
    const path = `/project/${'0'.repeat(32)}`;
    for (let i = 0; i < BURST; i++) expect((await service.request('GET', path, { apiKey: first })).status).toBe(404);
    const throttled = await service.request('GET', path, { apiKey: first });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await service.request('GET', path, { apiKey: second })).status).toBe(404);
  });

  it('stops a throttled request before its handler: nothing is created', async () => {
    const userId = 'throttle-carol';
    const carol = await service.token(userId);
    for (let i = 0; i < BURST; i++)
      expect((await service.request('POST', '/basket', { token: carol })).status).toBe(200);
    expect((await service.request('POST', '/basket', { token: carol })).status).toBe(429);
    const { listBaskets } = await import('../../functions/store/basket-store.ts');
    expect((await listBaskets(userId, Date.now(), { limit: 200 })).baskets).toHaveLength(BURST);
  });

  it('leaves unauthenticated answers and public routes alone', async () => {
    for (let i = 0; i < BURST + 2; i++) {
      expect((await service.request('GET', '/baskets')).status).toBe(401);
      expect((await service.request('GET', '/health')).status).toBe(200);
    }
  });
});
