/** Order statistics and the side-by-side measuring loop every budget uses. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

export interface Paired<T> {
  candidate: T[];
  baseline: T[];
}

/**
 * Runs candidate and baseline alternately, `rounds` times each, swapping which goes first every round
 * (ABBA), so drift in the machine's load falls on both sides alike. Each function returns one sample.
 */
export async function sideBySide<T>(
  rounds: number,
  candidate: () => Promise<T>,
  baseline: () => Promise<T>,
): Promise<Paired<T>> {
  const samples: Paired<T> = { candidate: [], baseline: [] };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      samples.candidate.push(await candidate());
      samples.baseline.push(await baseline());
    } else {
      samples.baseline.push(await baseline());
      samples.candidate.push(await candidate());
    }
  }
  return samples;
}

/**
 * The median of the per-round ratios candidate / baseline. Each round's two samples ran back to back, so
 * a change in the machine's load between rounds cancels out of each ratio, where a ratio of the two sides'
 * medians can pair a sample from a busy moment with one from a quiet moment.
 */
export const pairedRatio = (samples: Paired<number>): number =>
  median(samples.candidate.map((value, round) => value / (samples.baseline[round] as number)));

/** Milliseconds spent in `work`. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export interface Cost {
  /** Wall-clock milliseconds. */
  wall: number;
  /** Milliseconds of CPU (user + system, all threads) this process spent meanwhile. */
  cpu: number;
}

/**
 * Wall clock and CPU time of `work`. On a shared machine the wall clock also counts the time spent
 * waiting for a core behind other processes; the CPU time does not.
 */
export async function costOf(work: () => Promise<unknown>): Promise<Cost> {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  await work();
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

export const ms = (value: number, digits = 2): string => `${value.toFixed(digits)} ms`;
export const ratio = (value: number): string => value.toFixed(2);
export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
