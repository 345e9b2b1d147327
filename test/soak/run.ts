/**
 * `npm run soak [-- --duration 60 --clients 24 --crash-duration 30 --only soak|crash]`
 *
 * 1. Soak: the service as a child process on a temporary DATA_DIR, a mixed workload from many concurrent
 *    clients for a fixed time, then the audit (every acknowledged write present, every OrderTotal the sum
 *    of its lines, one order per completed checkout).
 * 2. Crash: the same workload on a fresh DATA_DIR; halfway through, SIGKILL the server, restart it on the
 *    same DATA_DIR, let the workload finish, then the same audit.
 * Prints the figures of both and exits non-zero when an audit fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  audit,
  formatReport,
  killServer,
  newClients,
  prepare,
  runWorkload,
  startServer,
  stopServer,
  Target,
  type ServerProcess,
} from './workload.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    'crash-duration': { type: 'string', default: '30' },
    clients: { type: 'string', default: '24' },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const clients = Number(values.clients);
const durationMs = Number(values.duration) * 1000;
const crashDurationMs = Number(values['crash-duration']) * 1000;

async function soak(): Promise<boolean> {
  const dataDir = mkdtempSync(join(tmpdir(), 'photo-commerce-soak-'));
  const server = await startServer(dataDir);
  try {
    const target = new Target();
    target.up(server.url);
    const fixture = await prepare(target, dataDir);
    const models = await newClients(fixture, clients);
    process.stdout.write(
      `soak: ${clients} clients for ${durationMs / 1000} s against ${server.url} (orders: ${fixture.features.orders}, library: ${fixture.features.library})\n`,
    );
    const { stats, failures } = await runWorkload(models, fixture, target, { clients, until: { ms: durationMs } });
    const result = await audit(models, fixture, target);
    process.stdout.write(`${formatReport('soak', stats, result, failures)}\n`);
    return result.ok && failures.length === 0;
  } finally {
    await stopServer(server);
    if (!values.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

async function crash(): Promise<boolean> {
  const dataDir = mkdtempSync(join(tmpdir(), 'photo-commerce-crash-'));
  let server: ServerProcess = await startServer(dataDir);
  try {
    const target = new Target();
    target.up(server.url);
    const fixture = await prepare(target, dataDir);
    const models = await newClients(fixture, clients);
    process.stdout.write(
      `crash: ${clients} clients for ${crashDurationMs / 1000} s, SIGKILL at ${crashDurationMs / 2000} s, restart on ${dataDir}\n`,
    );
    let restartMs = 0;
    const { stats, failures } = await runWorkload(models, fixture, target, {
      clients,
      until: { ms: crashDurationMs },
      interrupt: {
        at: { ms: crashDurationMs / 2 },
        run: async () => {
          target.down();
          await killServer(server);
          const restartedAt = Date.now();
          server = await startServer(dataDir);
          restartMs = Date.now() - restartedAt;
          target.up(server.url);
        },
      },
    });
    const result = await audit(models, fixture, target);
    process.stdout.write(
      `${formatReport('crash (SIGKILL mid-workload, restart on the same DATA_DIR)', stats, result, failures)}\nrestart took ${(restartMs / 1000).toFixed(1)} s\n`,
    );
    return result.ok && failures.length === 0;
  } finally {
    await stopServer(server);
    if (!values.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

let ok = true;
if (values.only !== 'crash') ok = (await soak()) && ok;
if (values.only !== 'soak') ok = (await crash()) && ok;
process.exit(ok ? 0 : 1);
