/**
 * Crash recovery, short version of `npm run soak`'s crash phase: the service as a child process, a mixed
 * workload from concurrent clients, SIGKILL halfway, a restart on the same DATA_DIR, the rest of the
 * workload, then the audit: every write acknowledged before (and after) the kill is there, every basket
 * total is the sum of its lines, every completed checkout made exactly one order, no stray S3 object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { audit, formatReport, killServer, newClients, prepare, runWorkload, startServer, stopServer, Target, type ServerProcess } from '../soak/workload.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'photo-commerce-crash-test-'));
let server: ServerProcess | undefined;

afterAll(async () => {
  if (server) await stopServer(server);
  rmSync(dataDir, { recursive: true, force: true });
});

it('loses no acknowledged write when the server is killed with SIGKILL mid-workload and restarted', async () => {
  server = await startServer(dataDir);
  const target = new Target();
  target.up(server.url);
  const fixture = await prepare(target, dataDir);
  const models = await newClients(fixture, 8);
  let killed = false;
  const { stats, failures } = await runWorkload(models, fixture, target, {
    clients: 8,
    durationMs: 6_000,
    interrupt: {
      atMs: 3_000,
      run: async () => {
        target.down();
        await killServer(server as ServerProcess);
        killed = true;
        server = await startServer(dataDir);
        target.up(server.url);
      },
    },
  });
  const result = await audit(models, fixture, target);
  const report = formatReport('crash recovery', stats, result, failures);
  expect(killed).toBe(true);
  expect(failures, report).toEqual([]);
  expect(result.problems, report).toEqual([]);
  expect(stats.requests, report).toBeGreaterThan(50);
}, 120_000);
