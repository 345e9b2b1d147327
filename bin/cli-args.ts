/** Tiny shared argument parsing for the local CLIs (`--name value` and `--flag`), and how they find the server. */
import { connect } from 'node:net';
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

/** How long connecting to the server may take before the CLI gives up on it. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Why no connection to `url`'s host and port can be opened (an error code), or undefined when one can. */
function connectionFailure(url: URL): Promise<string | undefined> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: CONNECT_TIMEOUT_MS });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(`no connection within ${CONNECT_TIMEOUT_MS / 1000} s`);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/**
 * The service a CLI calls: `flag` (its `--url`), else BASE (the line `npm start` prints for other terminals
 * sets it), else the default server. When no connection to it can be opened, the CLI ends with one line naming
 * the URL it tried, and exit code 1. Only the connection is tried, not a request: a server busy starting its
 * functions is still the server.
 */
export async function reachableBase(flag: string | undefined): Promise<string> {
  // An empty BASE is unset, as in the README's examples (`${BASE:-http://127.0.0.1:3000}`).
  const base = (flag ?? (process.env.BASE || DEFAULT_BASE)).replace(/\/+$/, '');
  const source = flag !== undefined ? '--url' : process.env.BASE ? 'BASE' : 'the default';
  const url = URL.parse(base);
  const failure = url === null || !/^https?:$/.test(url.protocol) ? 'not an http(s) URL' : await connectionFailure(url);
  if (failure === undefined) return base;
  process.stderr.write(
    `cannot connect to the service at ${base} (${source}): ${failure}. Is npm start running there? ` +
      'Set BASE to its address (npm start prints the line that sets it) or pass --url.\n',
  );
  process.exit(1);
}
