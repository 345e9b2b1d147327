/**
 * `npm start` runs DynamoDB Local under a watchdog that stops it with SIGTERM when the server ends, however
 * it ends: Ctrl-C (SIGINT to the terminal's process group), SIGTERM and a SIGKILL leave no JVM behind, and
 * the next start works (the crash test covers a SIGKILL of the whole group and the data it keeps). Each test starts `npm start` with
 * its own JVM, seconds on a loaded machine: hence the long timeouts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { isAlive } from '../../lib/local/dynamodb-local.ts';
import { startServer, stopServer, type ServerProcess } from '../soak/workload.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'photo-commerce-engine-'));
const started: ServerProcess[] = [];
const enginePid = () =>
  (JSON.parse(readFileSync(join(dataDir, 'dynamodb-local', 'engine.pid'), 'utf8')) as { jvm: number }).jvm;

async function gone(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

async function start(): Promise<{ server: ServerProcess; jvm: number }> {
  const server = await startServer(dataDir);
  started.push(server);
  return { server, jvm: enginePid() };
}

afterAll(async () => {
  for (const server of started) await stopServer(server);
  rmSync(dataDir, { recursive: true, force: true });
});

it('stops its engine on SIGTERM', async () => {
  const { server, jvm } = await start();
  expect(isAlive(jvm)).toBe(true);
  server.child.kill('SIGTERM');
  await server.exited;
  expect(await gone(jvm)).toBe(true);
}, 120_000);

it('stops its engine on Ctrl-C (SIGINT to the whole process group)', async () => {
  const { server, jvm } = await start();
  process.kill(-(server.child.pid as number), 'SIGINT');
  await server.exited;
  expect(await gone(jvm)).toBe(true);
}, 120_000);

it('stops its engine when the server is killed with SIGKILL, and the next start works', async () => {
  const first = await start();
  const created = await fetch(`${first.server.url}/health`);
  expect(created.status).toBe(200);
  first.server.child.kill('SIGKILL');
  await first.server.exited;
  expect(await gone(first.jvm)).toBe(true);
  const second = await start();
  expect(second.jvm).not.toBe(first.jvm);
  expect((await fetch(`${second.server.url}/health`)).status).toBe(200);
}, 120_000);
