/**
 * The JSON log lines each function writes, as its log group would hold them. From source (every handler in
 * this process), the JSON lines written to stdout and stderr, each kept for the function whose invocation was
 * running when it was written (lib/local/source-invocations.ts) and not passed on, so INFO lines do not flood
 * the run's output; the caller sets `POWERTOOLS_LOG_LEVEL` before the service's modules load. From the
 * bundles, each function's log file (`<data dir>/logs/<handler>.log`, lib/local/bundles/function-process.ts),
 * whose processes log at the stack's level, INFO.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runsBundles } from './bundles.ts';

export type LogLine = Record<string, unknown>;

export interface FunctionLogs {
  /** The lines the function of handler module `handler` wrote so far. */
  of(handler: string): LogLine[];
  /** Stops capturing (source: stdout and stderr are this process's own again). */
  stop(): void;
}

/** The JSON lines of `text` that are complete (a line still being written has no newline yet). */
/** An embedded-metric line: not a log line, and the metric log (lib/local/metric-log.ts) must still see it. */
const EMF_LINE = '{"_aws":';

const jsonLines = (text: string): LogLine[] =>
  text
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{') && !line.startsWith(EMF_LINE))
    .map((line) => JSON.parse(line) as LogLine);

export async function captureFunctionLogs(dataDir: string): Promise<FunctionLogs> {
  if (runsBundles) {
    return {
      of: (handler) => {
        const file = join(dataDir, 'logs', `${handler}.log`);
        return existsSync(file) ? jsonLines(readFileSync(file, 'utf8')) : [];
      },
      stop: () => {},
    };
  }
  const { runningFunction } = await import('../../lib/local/source-invocations.ts');
  const captured = new Map<string, LogLine[]>();
  // Powertools writes ERROR lines to stderr, the others to stdout; a log group holds both.
  const restores = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const handler = runningFunction();
      if (handler === undefined) return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      const lines = jsonLines(text);
      if (lines.length === 0) return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
      captured.set(handler, [...(captured.get(handler) ?? []), ...lines]);
      const metrics = text.split('\n').filter((line) => line.startsWith(EMF_LINE));
      if (metrics.length > 0) write(`${metrics.join('\n')}\n`);
      const done = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof stream.write;
    return () => {
      stream.write = write;
    };
  });
  return {
    of: (handler) => captured.get(handler) ?? [],
    stop: () => restores.forEach((restore) => restore()),
  };
}
