/**
 * One engine per data folder: a running `npm start` publishes its storage's endpoints in DATA_DIR, and a CLI
 * on the same DATA_DIR uses that storage, or starts its own under the data folder's lock
 * (lib/local/single-start.ts), which `npm start` takes too. So two DynamoDB Local engines never open the
 * same data files.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from './dynamodb-local.ts';
import { lockDataDir, StartRefused } from './single-start.ts';
import { startLocalStorage, type LocalStorage } from './storage.ts';

/** Where a running `npm start` tells the CLIs its storage endpoints, so they share its data. */
const endpointsFile = (dataDir: string) => join(dataDir, 'local-endpoints.json');

type PublishedStorage = Pick<LocalStorage, 'dynamoEndpoint' | 's3Endpoint' | 'tableName'>;

export function publishEndpoints(dataDir: string, storage: PublishedStorage): void {
  const { dynamoEndpoint, s3Endpoint, tableName } = storage;
  writeFileSync(endpointsFile(dataDir), JSON.stringify({ pid: process.pid, dynamoEndpoint, s3Endpoint, tableName }));
}

export function withdrawEndpoints(dataDir: string): void {
  rmSync(endpointsFile(dataDir), { force: true });
}

/** The storage of a running `npm start` on `dataDir`, from the endpoints it published; undefined when none runs. */
function runningServerStorage(dataDir: string): LocalStorage | undefined {
  try {
    const { pid, ...published } = JSON.parse(readFileSync(endpointsFile(dataDir), 'utf8')) as PublishedStorage & {
      pid: number;
    };
    if (isAlive(pid)) return { ...published, serverPid: pid, close: async () => {} };
  } catch {
    // No server running on this DATA_DIR.
  }
  return undefined;
}

/** How long a CLI waits for DATA_DIR while another process holds it (another CLI, or an `npm start` starting up). */
const DATA_DIR_WAIT_MS = 60_000;

/**
 * For the CLIs: the storage of the running `npm start` on the same DATA_DIR if there is one (its engine
 * holds the data files), else one started on DATA_DIR for the duration of the command, under the data
 * folder's lock (lib/local/single-start.ts), so that no two engines ever open the same data: while another
 * CLI holds it, or an `npm start` has taken it but not yet published its endpoints, this waits; StartRefused
 * when that lasts past DATA_DIR_WAIT_MS.
 */
export async function connectOrStartStorage(dataDir: string, waitMs = DATA_DIR_WAIT_MS): Promise<LocalStorage> {
  for (const deadline = Date.now() + waitMs; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
    const running = runningServerStorage(dataDir);
    if (running) return running;
    let release: () => void;
    try {
      release = lockDataDir(dataDir);
    } catch (error) {
      if (error instanceof StartRefused && Date.now() < deadline) continue;
      throw error;
    }
    try {
      const storage = await startLocalStorage({ dataDir });
      return {
        ...storage,
        async close() {
          try {
            await storage.close();
          } finally {
            release();
          }
        },
      };
    } catch (error) {
      release();
      throw error;
    }
  }
}
