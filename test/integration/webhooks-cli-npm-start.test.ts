/**
 * `npm run -s webhooks -- --listen` in another terminal beside `npm start` on a port other than the default,
 * found the way the README says: through the `export BASE=… DATA_DIR=…` line `npm start` prints. `npm start`
 * runs with `WEBHOOK_ALLOW_LOOPBACK=true` in its shell, from source and with `LOCAL_BUNDLES=1` (every function
 * from its synthesized asset, which sees only its template's environment and what `npm start` lays over it):
 * either way the listener's registration is accepted and a checkout's delivery arrives, verified.
 *
 * The `LOCAL_BUNDLES=1` start keeps the run's CHECKOUT_URL (the default, so its local site is on port 3001): the
 * stack is synthesized with it, and another value would synthesize cdk.out again under the other files' feet.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, npmStart, type NpmStart } from '../support/npm-start.ts';
import { until } from '../support/webhooks.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'webhooks-cli-npm-start-'));
const running: NpmStart[] = [];
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

/** A demo project of `npm run seed` (bin/seed.ts). */
const SEEDED_PROJECT = '0a1b2c3d4e5f40718293a4b5c6d7e8f9';

describe.each([
  { functions: 'from source', LOCAL_BUNDLES: undefined, site: async () => `http://127.0.0.1:${await freePort()}` },
  { functions: 'from their assets', LOCAL_BUNDLES: '1', site: async () => process.env.CHECKOUT_URL },
])('beside npm start on another port, functions $functions', ({ functions, LOCAL_BUNDLES, site }) => {
  it('npm run -s webhooks -- --listen finds it by BASE, registers, and prints a verified delivery', async () => {
    const port = await freePort();
    const { LOCAL_BUNDLES: _run, CHECKOUT_URL: _site, ...shell } = process.env;
    const checkoutUrl = await site();
    const server = await npmStart({
      ...shell,
      PORT: String(port),
      DATA_DIR: join(scratch, functions.replaceAll(' ', '-')),
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      ...(checkoutUrl === undefined ? {} : { CHECKOUT_URL: checkoutUrl }),
      ...(LOCAL_BUNDLES === undefined ? {} : { LOCAL_BUNDLES }),
    });
    running.push(server);
    const { BASE, DATA_DIR } = server.exports;
    expect(BASE).toBe(`http://127.0.0.1:${port}`);
    expect(server.output()).toContain(LOCAL_BUNDLES ? 'functions run from their synthesized assets' : 'from source');

    // Another terminal, after pasting the export line: only BASE and DATA_DIR say where the server is.
    const terminal = { ...process.env, BASE, DATA_DIR };
    const cli = async (script: string, ...args: string[]) =>
      (await run(process.execPath, [script, ...args], { env: terminal })).stdout.trim();
    const siteKey = await cli('bin/api-key.ts', '--name', 'listener', '--scope', 'site');
    const token = await cli('bin/token.ts', '--user', 'alice');
    await cli('bin/seed.ts');

    const listener = spawn(
      process.execPath,
      ['bin/webhooks.ts', '--listen', '--key', siteKey, '--events', 'BasketCheckedOut'],
      {
        env: terminal,
      },
    );
    let printed = '';
    listener.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    listener.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const listenerExit = new Promise<number | null>((resolve) => listener.once('exit', resolve));
    await until('the listener to be ready', () => printed.includes('Ready: webhook') || printed.includes('\n'), 60_000);
    expect(printed).toMatch(new RegExp(`^Ready: webhook [0-9a-f]{32} of ${BASE} -> `));

    const call = async (method: string, path: string, json?: unknown) => {
      const response = await fetch(`${BASE}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
      expect(response.status, `${method} ${path}`).toBe(200);
      return (await response.json()) as { Guid: string };
    };
    const basket = (await call('POST', '/basket')).Guid;
    await call('POST', `/basket/${basket}/line`, { ProjectGuid: SEEDED_PROJECT, Quantity: 1 });
    await call('POST', `/basket/${basket}/checkout`);
    await until('the delivery', () => printed.includes('signature verified'), 60_000);
    expect(printed).toMatch(/BasketCheckedOut [0-9a-f]{32} signature verified\n\{"type":"BasketCheckedOut"/);

    listener.kill('SIGINT');
    expect(await listenerExit).toBe(0);
    expect(printed).toMatch(/Deleted webhook [0-9a-f]{32}\./);
  }, 240_000);
});
