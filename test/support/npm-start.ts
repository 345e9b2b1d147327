/**
 * `npm start` as a user runs it, for the tests of what another terminal does beside it: `node bin/local.ts`
 * (what the script runs) in a process of its own, ready once it prints the `export BASE=… DATA_DIR=…` line for
 * other terminals, and that line's variables, as a user pastes them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A loopback port free right now (for a server the test starts a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface NpmStart {
  /** What the export line sets: BASE and DATA_DIR (and CHECKOUT_URL when it is not the default). */
  exports: Record<string, string>;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM, as Ctrl-C in its terminal; resolves with its exit code. */
  stop(): Promise<number | null>;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.exitCode)
      : child.once('exit', (code) => resolve(code)),
  );

/** Starts `npm start`'s script with `env` and resolves once it prints its exports; rejects with its output if it exits first. */
export function npmStart(env: NodeJS.ProcessEnv): Promise<NpmStart> {
  const child = spawn(process.execPath, ['bin/local.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited(child);
  };
  return new Promise((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const line = /^ {2}export (.*)\n/m.exec(output)?.[1];
      if (line === undefined) return;
      child.stdout.off('data', collect);
      child.stdout.on('data', (more: Buffer) => (output += more.toString()));
      const exports = Object.fromEntries(line.split(' ').map((word) => word.split(/=(.*)/s).slice(0, 2)));
      resolve({ exports, output: () => output, stop });
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`npm start exited ${code} before it was ready:\n${output}`)));
  });
}
