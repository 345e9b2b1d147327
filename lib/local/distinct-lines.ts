/**
 * The logs a test run keeps of what the functions did (the AWS call log, the metric log): a directory of
 * JSONL files, one per process (vitest's workers and the processes they start are separate), each line
 * written once per process however often it recurs, so a log stays small.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The lines this process has written, by file. */
const written = new Map<string, Set<string>>();

/**
 * Appends `line` to this process's file `<name>-<pid>.jsonl` in `dir` unless it is there already.
 * Synchronous on purpose: a line is on disk before the work it records goes on, so a run's log is complete
 * when its processes end, however they end.
 */
export function appendDistinctLine(dir: string, name: string, line: string): void {
  const file = join(dir, `${name}-${process.pid}.jsonl`);
  let lines = written.get(file);
  if (lines === undefined) {
    mkdirSync(dir, { recursive: true });
    written.set(file, (lines = new Set()));
  }
  if (lines.has(line)) return;
  lines.add(line);
  appendFileSync(file, `${line}\n`);
}

/** Every distinct line of every process's file in `dir`, parsed; none when there is no such directory. */
export function readDistinctLines<T>(dir: string): T[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const lines = new Set(
    files.flatMap((name) =>
      readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter((line) => line !== ''),
    ),
  );
  return [...lines].map((line) => JSON.parse(line) as T);
}
