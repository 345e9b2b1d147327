/**
 * What a second `npm start` meets: before any storage starts, this process takes DATA_DIR for itself (a lock
 * file holding its pid) and checks that its ports are free. When one is taken it is refused with one line
 * naming what is taken and the variable that picks another, and the server already running is untouched:
 * nothing of its data folder or ports was opened.
 *
 * The lock is a file rather than the storage engine's own lock so that the refusal does not depend on which
 * engine runs (or on it failing cleanly), and comes before anything opens the folder. A lock left by a
 * process that no longer runs (killed with SIGKILL, a crash) is taken over.
 */
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { isAlive } from './dynamodb-local.ts';

/** A start that cannot go on; its message is the one line `npm start` prints. */
export class StartRefused extends Error {}

export interface PortClaim {
  port: number;
  host: string;
  /** What the port is for, as the refusal names it ("PORT 3000", "the local site's port 3001 (CHECKOUT_URL ...)"). */
  name: string;
  /** How to pick another, as the refusal says it. */
  remedy: string;
}

export const LOCK_FILE = 'npm-start.lock';

function lockHolder(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates the lock file holding this pid; false when it exists. Written aside and linked into place, so a
 * lock file is never seen without its pid.
 */
function createLock(path: string): boolean {
  const written = `${path}.${process.pid}`;
  writeFileSync(written, `${process.pid}\n`);
  try {
    linkSync(written, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(written, { force: true });
  }
}

/** Takes `dataDir` for this process; answers the release (idempotent, also run on exit). */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  if (!createLock(path)) {
    const holder = lockHolder(path);
    if (holder !== undefined && holder !== process.pid && isAlive(holder))
      throw new StartRefused(
        `DATA_DIR ${dataDir} is in use by pid ${holder} (another npm start, or a command such as npm run api-key): stop it or let it finish, or set DATA_DIR to another folder.`,
      );
    // Left by a process that is gone (SIGKILL, a crash): take it over.
    rmSync(path, { force: true });
    if (!createLock(path))
      throw new StartRefused(
        `DATA_DIR ${dataDir} is being taken by another process (npm start, or a command such as npm run api-key): set DATA_DIR to another folder.`,
      );
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    if (lockHolder(path) === process.pid) rmSync(path, { force: true });
  };
  process.once('exit', release);
  return release;
}

/** Resolves when `port` on `host` can be listened on now (port 0 always can). */
function portIsFree(port: number, host: string): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** Refuses the start when any of the ports is taken, or two of them are the same. */
export async function checkPorts(claims: readonly PortClaim[]): Promise<void> {
  for (const [index, claim] of claims.entries()) {
    const twin = claims.slice(0, index).find((other) => other.port !== 0 && other.port === claim.port);
    if (twin) throw new StartRefused(`${claim.name} is ${twin.name} too: ${claim.remedy}.`);
    if (!(await portIsFree(claim.port, claim.host)))
      throw new StartRefused(
        `${claim.name} on ${claim.host} is taken (another npm start, or another program): ${claim.remedy}.`,
      );
  }
}

export interface StartClaim {
  dataDir: string;
  /** The API's address (PORT, HOST). */
  port: number;
  host: string;
  /** The local site's address, when CHECKOUT_URL is a loopback origin it is served on. */
  site: { host: string; port: number } | undefined;
  checkoutUrl: string;
  /** Fixed ports of the embedded storage (DYNAMODB_PORT, S3_PORT); 0 or unset picks free ones. */
  storagePorts?: Partial<Record<'DYNAMODB_PORT' | 'S3_PORT', number>>;
}

/**
 * `npm start`'s claim on its data folder and ports: answers the release of the data folder, or, when one is
 * taken, prints the one line that says so and exits with status 1.
 */
export async function claimStart(claim: StartClaim): Promise<() => void> {
  let release: (() => void) | undefined;
  try {
    release = lockDataDir(claim.dataDir);
    await checkPorts([
      { port: claim.port, host: claim.host, name: `PORT ${claim.port}`, remedy: 'set PORT to a free port' },
      ...(claim.site
        ? [
            {
              ...claim.site,
              name: `the local site's port ${claim.site.port} (CHECKOUT_URL ${claim.checkoutUrl})`,
              remedy: `set CHECKOUT_URL to another loopback port, e.g. http://127.0.0.1:${claim.site.port + 100}`,
            },
          ]
        : []),
      ...Object.entries(claim.storagePorts ?? {}).map(([variable, port]) => ({
        port,
        host: '127.0.0.1',
        name: `${variable} ${port}`,
        remedy: `set ${variable} to a free port (0 picks one)`,
      })),
    ]);
    return release;
  } catch (error) {
    if (!(error instanceof StartRefused)) throw error;
    release?.();
    process.stderr.write(`npm start: ${error.message}\n`);
    process.exit(1);
  }
}
