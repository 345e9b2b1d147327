/** Tiny shared argument parsing for the local CLIs (`--name value` and `--flag`), and how they find the server. */
import { parseArgs } from 'node:util';

export function cliArgs<T extends Record<string, { type: 'string' | 'boolean' }>>(options: T) {
  try {
    return parseArgs({ options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
}

export const dataDirFromEnv = (): string => process.env.DATA_DIR ?? '.data';

/** The server `npm start` runs without PORT or HOST. */
export const DEFAULT_BASE = 'http://127.0.0.1:3000';

/** How a usage line names the `--url` flag's default. */
export const BASE_USAGE = `base URL, default $BASE or ${DEFAULT_BASE}`;

/** How long the first request to the server may go unanswered before the CLI gives up on it. */
const REACH_TIMEOUT_MS = 10_000;

/**
 * The service a CLI calls: `flag` (its `--url`), else BASE (the line `npm start` prints for other terminals
 * sets it), else the default server; checked with one request to its `/health` route, so that a server not
 * running there ends the CLI with one line naming the URL it tried and exit code 1. Any answer, whatever its
 * status, is a server.
 */
export async function reachableBase(flag: string | undefined): Promise<string> {
  // An empty BASE is unset, as in the README's examples (`${BASE:-http://127.0.0.1:3000}`).
  const base = (flag ?? (process.env.BASE || DEFAULT_BASE)).replace(/\/+$/, '');
  const source = flag !== undefined ? '--url' : process.env.BASE ? 'BASE' : 'the default';
  try {
    const response = await fetch(`${base}/health`, {
      redirect: 'manual',
      signal: AbortSignal.timeout(REACH_TIMEOUT_MS),
    });
    await response.body?.cancel();
    return base;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${REACH_TIMEOUT_MS / 1000} s`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    process.stderr.write(
      `cannot connect to the service at ${base} (${source}): ${reason}. Is npm start running there? ` +
        'Set BASE to its address (npm start prints the line that sets it) or pass --url.\n',
    );
    process.exit(1);
  }
}
