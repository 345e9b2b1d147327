/**
 * The cache of the webhook functions (opened secrets: webhooks/webhook-secrets.ts; the fan-out's subscribers:
 * webhooks/subscriber-cache.ts) under calls at once in one process, as Lambda Managed Instances and
 * `npm start` run several invocations together: misses of one key share one load, a failed load is not kept
 * and never drops a newer entry of its key, an entry lives its stated time.
 */
import { describe, expect, it } from 'vitest';
import { expiringCache } from '../../functions/shared/expiring-cache.ts';

/** A load whose calls are counted and settled by the test. */
function controlledLoad() {
  const calls: { key: string; resolve: (value: string) => void; reject: (error: Error) => void }[] = [];
  const load = (key: string) =>
    new Promise<string>((resolve, reject) => {
      calls.push({ key, resolve, reject });
    });
  return { calls, load };
}

describe('the expiring cache', () => {
  it('shares one load among concurrent misses of a key, and keeps the value its time', async () => {
    const { calls, load } = controlledLoad();
    const cache = expiringCache({ ttlMs: () => 10_000, maxEntries: 10, load });
    const waiting = Array.from({ length: 20 }, () => cache.get('OrderCreated', 0));
    expect(calls).toHaveLength(1);
    calls[0]!.resolve('subscribers-1');
    expect(new Set(await Promise.all(waiting))).toEqual(new Set(['subscribers-1']));
    expect(await cache.get('OrderCreated', 9_999)).toBe('subscribers-1');
    expect(calls).toHaveLength(1);
    // Past its time, a miss loads afresh: a new or deleted webhook is seen after at most ttlMs.
    const fresh = cache.get('OrderCreated', 10_000);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve('subscribers-2');
    expect(await fresh).toBe('subscribers-2');
  });

  it('does not keep a failed load: every caller of it sees the failure, the next call loads again', async () => {
    const { calls, load } = controlledLoad();
    const cache = expiringCache({ ttlMs: () => 10_000, maxEntries: 10, load });
    const first = [cache.get('k', 0), cache.get('k', 0)];
    calls[0]!.reject(new Error('throttled'));
    for (const call of first) await expect(call).rejects.toThrow('throttled');
    const again = cache.get('k', 1);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve('value');
    expect(await again).toBe('value');
  });

  it('lets a failed load that outlived its entry leave the newer entry of its key alone', async () => {
    const { calls, load } = controlledLoad();
    const cache = expiringCache({ ttlMs: () => 1_000, maxEntries: 10, load });
    const stale = cache.get('k', 0);
    // The entry expires while its load still runs; a later call loads anew and succeeds.
    const newer = cache.get('k', 2_000);
    calls[1]!.resolve('newer');
    expect(await newer).toBe('newer');
    calls[0]!.reject(new Error('slow failure'));
    await expect(stale).rejects.toThrow('slow failure');
    // The newer entry is still the one kept: no third load.
    expect(await cache.get('k', 2_500)).toBe('newer');
    expect(calls).toHaveLength(2);
  });

  it('keeps at most maxEntries, dropping the oldest; a time of 0 keeps nothing', async () => {
    const { calls, load } = controlledLoad();
    const cache = expiringCache({ ttlMs: () => 10_000, maxEntries: 2, load });
    for (const key of ['a', 'b', 'c']) void cache.get(key, 0);
    for (const call of calls) call.resolve(call.key);
    void cache.get('a', 1);
    expect(calls.map((call) => call.key)).toEqual(['a', 'b', 'c', 'a']);
    const uncached = expiringCache({ ttlMs: () => 0, maxEntries: 2, load });
    void uncached.get('x', 0);
    void uncached.get('x', 0);
    expect(calls.filter((call) => call.key === 'x')).toHaveLength(2);
  });
});
