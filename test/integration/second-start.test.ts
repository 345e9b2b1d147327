/**
 * A second `npm start` while one runs: on the same data folder (same or another port), on the same API port
 * with another DATA_DIR, or on the same local site port, it exits non-zero with one line that names what is
 * taken and the variable that picks another, and the first server runs on untouched. A start after a
 * SIGKILL takes the folder over. Each start is `node bin/local.ts`, what `npm start` runs, on free loopback
 * ports and temporary folders, with a DynamoDB Local of its own as `npm start` has.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../lib/local/single-start.ts';
import { freePort } from '../support/npm-start.ts';

const scratch = mkdtempSync(join(tmpdir(), 'second-start-'));
const started: ChildProcess[] = [];

interface Start {
  port: number;
  dataDir: string;
  sitePort: number;
}

/** `npm start`'s environment: its own DynamoDB Local under DATA_DIR, not the test run's shared engine. */
const envOf = ({ DYNAMODB_LOCAL_POOL: _shared, ...environment }: NodeJS.ProcessEnv, start: Start) => ({
  ...environment,
  PORT: String(start.port),
  DATA_DIR: start.dataDir,
  CHECKOUT_URL: `http://127.0.0.1:${start.sitePort}`,
});

/** What the first start printed, up to its export line. */
let firstOutput = '';

/** Starts `npm start`'s script and resolves once both servers listen and the exports for other terminals are printed. */
function startServer(start: Start, onOutput: (output: string) => void = () => {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/local.ts'], {
    env: envOf(process.env, start),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      onOutput(output);
      if (/^ {2}export BASE=.*\n/m.test(output)) resolve(child);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => reject(new Error(`the first start exited ${code}: ${output}`)));
  });
}

/** A start expected to be refused: its exit code and what it printed. Killed if it is still running after 20 s. */
function refusedStart(start: Start): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/local.ts'], {
    env: envOf(process.env, start),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    }),
  );
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.exitCode)
      : child.once('exit', (code) => resolve(code)),
  );

let first: Start;
let firstProcess: ChildProcess;
const lockOf = (dataDir: string) => readFileSync(join(dataDir, LOCK_FILE), 'utf8').trim();
const endpointsOf = (dataDir: string) => readFileSync(join(dataDir, 'local-endpoints.json'), 'utf8');

beforeAll(async () => {
  first = { port: await freePort(), sitePort: await freePort(), dataDir: join(scratch, 'first') };
  firstProcess = await startServer(first, (output) => (firstOutput = output));
}, 180_000);

afterAll(async () => {
  // SIGTERM, so that each stops its DynamoDB Local too; SIGKILL what is still running 20 s later.
  const running = started.filter((child) => child.exitCode === null && child.signalCode === null);
  for (const child of running) child.kill('SIGTERM');
  const stragglers = setTimeout(() => running.forEach((child) => child.kill('SIGKILL')), 20_000);
  await Promise.all(running.map(exited));
  clearTimeout(stragglers);
  rmSync(scratch, { recursive: true, force: true });
});

async function expectFirstUntouched(lock: string, endpoints: string): Promise<void> {
  const health = await fetch(`http://127.0.0.1:${first.port}/health`);
  expect(await health.json()).toEqual({ Status: 'ok' });
  const site = await fetch(`http://127.0.0.1:${first.sitePort}/`);
  expect(site.status).toBeLessThan(500);
  await site.arrayBuffer();
  expect(lockOf(first.dataDir)).toBe(lock);
  expect(endpointsOf(first.dataDir)).toBe(endpoints);
  expect(firstProcess.exitCode).toBeNull();
}

describe('the exports it prints for other terminals', () => {
  it('reach this server from a shell in another folder: a token made there is accepted', async () => {
    const line = /^ {2}(export BASE=.*)$/m.exec(firstOutput)?.[1] ?? '';
    expect(line).toBe(
      `export BASE=http://127.0.0.1:${first.port} DATA_DIR=${first.dataDir} CHECKOUT_URL=http://127.0.0.1:${first.sitePort}`,
    );
    // Another terminal: another working folder, none of the server's variables, only the printed line.
    const { BASE: _base, DATA_DIR: _dataDir, PORT: _port, CHECKOUT_URL: _site, ...environment } = process.env;
    const script = `${line}
TOKEN=$(cd "${process.cwd()}" && ${process.execPath} bin/token.ts --user exports-test)
curl -fsS "$BASE/baskets" -H "Authorization: Bearer $TOKEN"`;
    const shell = spawn('sh', ['-c', script], { cwd: scratch, env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    shell.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    shell.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => shell.once('close', resolve));
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ Baskets: [] });
  }, 60_000);
});

describe('a second npm start', () => {
  const cases: Array<{ name: string; start: () => Promise<Start>; names: RegExp[] }> = [
    {
      name: 'on the same data folder and port',
      start: async () => first,
      names: [/DATA_DIR/, /in use/],
    },
    {
      name: 'on the same data folder and other ports',
      start: async () => ({ ...first, port: await freePort(), sitePort: await freePort() }),
      names: [/DATA_DIR/, /in use/],
    },
    {
      name: 'on another data folder and the same port',
      start: async () => ({ ...first, dataDir: join(scratch, 'other-port'), sitePort: await freePort() }),
      names: [/\bPORT\b/, /is taken/],
    },
    {
      name: "on another data folder and port but the same local site's port",
      start: async () => ({ ...first, dataDir: join(scratch, 'other-site'), port: await freePort() }),
      names: [/CHECKOUT_URL/, /is taken/],
    },
  ];

  it.each(cases)(
    '$name exits non-zero with one line naming what is taken',
    async ({ start, names }) => {
      const lock = lockOf(first.dataDir);
      const endpoints = endpointsOf(first.dataDir);
      const second = await start();
      const { code, stdout, stderr } = await refusedStart(second);
      expect(code, stderr).not.toBe(0);
      expect(code).not.toBeNull();
      expect(stdout).toBe('');
      const lines = stderr.trim().split('\n');
      expect(lines, stderr).toHaveLength(1);
      const line = lines[0] as string;
      expect(line).not.toMatch(/\bat .*:\d+:\d+|Error:/);
      for (const name of names) expect(line).toMatch(name);
      if (second.dataDir === first.dataDir) expect(line).toContain(first.dataDir);
      else if (second.port === first.port) expect(line).toContain(String(first.port));
      else expect(line).toContain(String(first.sitePort));
      await expectFirstUntouched(lock, endpoints);
    },
    60_000,
  );

  it('after the first was killed with SIGKILL, starts on its data folder and ports, and frees them on SIGTERM', async () => {
    firstProcess.kill('SIGKILL');
    await exited(firstProcess);
    expect(lockOf(first.dataDir)).toBe(String(firstProcess.pid));
    const again = await startServer(first);
    expect(lockOf(first.dataDir)).toBe(String(again.pid));
    const health = await fetch(`http://127.0.0.1:${first.port}/health`);
    expect(await health.json()).toEqual({ Status: 'ok' });
    again.kill('SIGTERM');
    expect(await exited(again)).toBe(0);
    expect(() => lockOf(first.dataDir)).toThrow(/ENOENT/);
  }, 180_000);
});
