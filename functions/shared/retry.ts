/**
 * Optimistic-concurrency retry: re-run a read-modify-write until its conditional write wins. Bounded, with
 * jittered backoff, so 50 writers on one basket all land and a hopeless storm fails cleanly with a
 * retryable 503 (contention is transient; nothing of the request was written).
 */
import { serviceUnavailable } from './errors.ts';

export interface RetryOptions {
  attempts: number;
  /** Backoff ceiling in ms; each wait is random in [0, min(cap, base * 2^attempt)). */
  capMs: number;
  baseMs: number;
}

const defaults: RetryOptions = { attempts: 60, capMs: 40, baseMs: 2 };

export async function retryOnConflict<T>(
  work: () => Promise<T>,
  isConflict: (error: unknown) => boolean,
  options: Partial<RetryOptions> = {},
): Promise<T> {
  const { attempts, capMs, baseMs } = { ...defaults, ...options };
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isConflict(error)) throw error;
      if (attempt + 1 >= attempts) {
        throw serviceUnavailable(
          'The resource is being changed by other requests right now; retry the request.',
          'ConcurrentModification',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(capMs, baseMs * 2 ** attempt)));
    }
  }
}
