/**
 * The DynamoDB Local engines a test run shares between its files, each file's storage on a table of its
 * own. Not one engine for the run: DynamoDB Local slows down every write to a table whose stream began
 * after many other stream records. Each write looks up its stream's shard with a query that walks the
 * engine's whole stream-record table in sequence order (measured, 2026-01-16 engine: a PutItem to a new
 * table takes 2.5 ms on a fresh engine, 8 ms after 10,000 records of other tables, 62 ms after 60,000;
 * deleting the other tables changes nothing, their records stay). A run writes about 25,000 items, so on
 * one engine its later files ran several times slower than alone and heavy ones timed out.
 *
 * So the pool hands out the current engine until it has taken ENGINE_ITEMS_BEFORE_NEXT writes, then the
 * next one, started when the current one is half way there so that no file waits for a JVM. An engine
 * nobody uses any more is stopped. A storage with a data directory asks by its table name and always gets
 * the engine that table is on (a restart finds its data), which is therefore kept until the end of the run.
 *
 * The pool is a loopback HTTP server in the run's main process (test/support/engine.ts); the test
 * workers, forked, find it through DYNAMODB_LOCAL_POOL and lease with leaseSharedEngine.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.ts';
import { startDynamoDbRecorder, type DynamoDbRecorder } from './dynamodb-recorder.ts';
import { closeServer, listenLocally } from './listen.ts';

/** The variable the test workers find the pool by. */
export const DYNAMODB_LOCAL_POOL = 'DYNAMODB_LOCAL_POOL';

/** Writes an engine takes before new leases go to the next one (8 ms writes at most: see above). */
export const ENGINE_ITEMS_BEFORE_NEXT = 8_000;

interface Engine {
  id: number;
  engine: DynamoDbLocal;
  recorder: DynamoDbRecorder;
  leases: number;
  /** A table named by a data directory lives here: kept until the run ends. */
  pinned: boolean;
}

export interface EnginePool {
  url: string;
  /** How many engines the run started, how many run now, and the items written through them. */
  summary(): { engines: number; running: number; itemsWritten: number };
  close(): Promise<void>;
}

export async function startEnginePool(
  callLogDir: string,
  itemsBeforeNext = ENGINE_ITEMS_BEFORE_NEXT,
): Promise<EnginePool> {
  let started = 0;
  let itemsOfClosed = 0;
  const live = new Map<number, Engine>();
  const tables = new Map<string, Engine>();
  const start = async (): Promise<Engine> => {
    const engine = await startDynamoDbLocal();
    const recorder = await startDynamoDbRecorder(engine.endpoint, callLogDir);
    const entry = { id: ++started, engine, recorder, leases: 0, pinned: false };
    live.set(entry.id, entry);
    return entry;
  };
  const stop = async (entry: Engine) => {
    live.delete(entry.id);
    itemsOfClosed += entry.recorder.itemsWritten();
    await entry.recorder.close();
    await entry.engine.close();
  };
  let current = await start();
  let next: Promise<Engine> | undefined;
  /** Not current, nobody leasing it, no data directory's table on it. */
  const stopIfUnused = (entry: Engine) =>
    entry !== current && entry.leases === 0 && !entry.pinned ? stop(entry) : Promise.resolve();

  const lease = async (table: string | undefined): Promise<Engine> => {
    const known = table === undefined ? undefined : tables.get(table);
    if (known) return known;
    const written = current.recorder.itemsWritten();
    if (written >= itemsBeforeNext / 2) next ??= start();
    if (written >= itemsBeforeNext) {
      const previous = current;
      current = await (next as Promise<Engine>);
      next = undefined;
      await stopIfUnused(previous);
    }
    if (table !== undefined) {
      tables.set(table, current);
      current.pinned = true;
    }
    return current;
  };
  // One lease or release at a time: each reads and changes `current`.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://pool');
    const work =
      url.pathname === '/lease'
        ? serially(async () => {
            const entry = await lease(url.searchParams.get('table') ?? undefined);
            entry.leases++;
            return { id: entry.id, endpoint: entry.recorder.endpoint };
          })
        : url.pathname === '/release'
          ? serially(async () => {
              const entry = live.get(Number(url.searchParams.get('id')));
              if (entry) {
                entry.leases--;
                await stopIfUnused(entry);
              }
              return {};
            })
          : Promise.reject(new Error(`no such pool request: ${url.pathname}`));
    work.then(
      (answer) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
  const url = await listenLocally(server);
  return {
    url,
    summary: () => ({
      engines: started,
      running: live.size,
      itemsWritten: itemsOfClosed + [...live.values()].reduce((sum, entry) => sum + entry.recorder.itemsWritten(), 0),
    }),
    async close() {
      await closeServer(server);
      await queue;
      if (next) await next;
      await Promise.all([...live.values()].map(stop));
    },
  };
}

export interface EngineLease {
  endpoint: string;
  release(): Promise<void>;
}

/**
 * A lease on an engine of the run's pool, when the process runs in a test run (DYNAMODB_LOCAL_POOL);
 * `table` set: the engine that table is on.
 */
export async function leaseSharedEngine(table?: string): Promise<EngineLease | undefined> {
  const pool = process.env[DYNAMODB_LOCAL_POOL];
  if (!pool) return undefined;
  const answer = await fetch(`${pool}/lease${table ? `?table=${encodeURIComponent(table)}` : ''}`, { method: 'POST' });
  if (!answer.ok) throw new Error(`the engine pool refused a lease: ${await answer.text()}`);
  const { id, endpoint } = (await answer.json()) as { id: number; endpoint: string };
  return {
    endpoint,
    async release() {
      await fetch(`${pool}/release?id=${id}`, { method: 'POST' }).then((released) => released.body?.cancel());
    },
  };
}
