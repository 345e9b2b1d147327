/**
 * A cache of values loaded by key, each kept `ttlMs` from its load, at most `maxEntries` (the oldest goes
 * first). Safe under invocations running at once in one process (Lambda Managed Instances, `npm start`):
 * the entry holds the pending load itself, so misses of one key at once share one load, and a load that
 * fails is dropped only while its own entry is the one kept, never a newer entry of the same key.
 */
export interface ExpiringCache<T> {
  get(key: string, now?: number): Promise<T>;
}

export function expiringCache<T>(options: {
  ttlMs: () => number;
  maxEntries: number;
  load: (key: string) => Promise<T>;
}): ExpiringCache<T> {
  const entries = new Map<string, { until: number; value: Promise<T> }>();
  return {
    get(key, now = Date.now()) {
      const kept = entries.get(key);
      if (kept && kept.until > now) return kept.value;
      entries.delete(key);
      const value = options.load(key);
      const ttlMs = options.ttlMs();
      if (ttlMs <= 0) return value;
      if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value as string);
      const entry = { until: now + ttlMs, value };
      entries.set(key, entry);
      // A failed load is not kept: the next call loads again.
      value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return value;
    },
  };
}
