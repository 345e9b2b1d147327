/** Bounded concurrency over a list of work that may itself arrive as a stream. */

export interface Settled<R> {
  index: number;
  outcome: PromiseSettledResult<R>;
}

export interface SettleLimits {
  /** Works in flight at once. */
  concurrency: number;
  /** Most entries taken from the list; one more stops the list with `tooMany()`. */
  maxItems: number;
  tooMany: () => unknown;
}

/**
 * Runs `work` on each entry, `concurrency` at a time, pulling entries as slots free up (a multipart body
 * yields its parts only as they are read). A failing entry does not stop the others: every failure is
 * reported, in `index` order. A failing list (malformed body, too many entries) stops pulling and is
 * returned as `listError`.
 */
export async function settleBounded<S extends { index: number }, R>(
  entries: Iterable<S> | AsyncIterable<S>,
  limits: SettleLimits,
  work: (entry: S) => Promise<R>,
): Promise<{ settled: Settled<R>[]; count: number; listError?: unknown }> {
  const iterator =
    Symbol.asyncIterator in entries
      ? entries[Symbol.asyncIterator]()
      : (async function* () {
          yield* entries;
        })();
  const settled: Settled<R>[] = [];
  let count = 0;
  let listError: unknown;
  const worker = async () => {
    while (listError === undefined) {
      let next: IteratorResult<S>;
      try {
        next = await iterator.next();
      } catch (error) {
        listError ??= error;
        return;
      }
      if (next.done) return;
      if (++count > limits.maxItems) {
        listError ??= limits.tooMany();
        return;
      }
      const entry = next.value;
      const outcome = await work(entry).then(
        (value): PromiseSettledResult<R> => ({ status: 'fulfilled', value }),
        (reason: unknown): PromiseSettledResult<R> => ({ status: 'rejected', reason }),
      );
      settled.push({ index: entry.index, outcome });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limits.concurrency) }, worker));
  if (listError !== undefined) await iterator.return?.();
  return {
    settled: settled.sort((a, b) => a.index - b.index),
    count: Math.min(count, limits.maxItems),
    ...(listError !== undefined ? { listError } : {}),
  };
}
