/**
 * Pins this process (and every process it starts from then on, DynamoDB Local's JVM included) to one CPU
 * core with Linux `taskset`. False where that is not possible (another OS, one core, no taskset); the
 * figures then say they ran unpinned.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export function pinToCore(core: number): boolean {
  if (process.platform !== 'linux' || availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-pc', String(core), String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
