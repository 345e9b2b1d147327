/**
 * `npm run -s webhooks -- --listen` against the local stack: it finds the server by BASE (or `--url`, which
 * wins), registers a loopback receiver for the key, prints a delivery with its verdict (verified by
 * `standardwebhooks`), and deletes the webhook on Ctrl-C (SIGINT); a stack that refuses loopback receivers gets
 * its refusal printed, naming the switch. Each CLI that calls the API, pointed at a closed port, says in one
 * line which address it tried. (Beside a real `npm start` on another port: webhooks-cli-npm-start.test.ts.)
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_KEY_SCOPES } from '../../functions/auth/principal.ts';
import { freePort } from '../support/npm-start.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { until } from '../support/webhooks.ts';

let service: TestService;
let siteKey: string;
let alice: string;

beforeAll(async () => {
  service = await startTestService({ env: { WEBHOOK_ALLOW_LOOPBACK: 'true' }, renditions: false, streamPollMs: 50 });
  siteKey = await service.apiKey('cli-site', 'site');
  alice = await service.token('cli-alice');
});
afterAll(async () => service?.close());

/** A CLI of bin/ run with BASE set (as after pasting `npm start`'s export line). */
function run(
  base: string,
  script: string,
  ...args: string[]
): {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number>;
} {
  const child = spawn(process.execPath, [script, ...args], { cwd: process.cwd(), env: { ...process.env, BASE: base } });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  return { child, output: () => text, exited };
}

it('listens: finds the server by BASE, registers, prints a verified delivery, deletes the webhook on Ctrl-C', async () => {
  const cli = run(service.url, 'bin/webhooks.ts', '--listen', '--key', siteKey, '--events', 'BasketCheckedOut');
  await until('Ready', () => cli.output().includes('Ready: webhook'), 15_000);
  const webhookId = /Ready: webhook ([0-9a-f]{32})/.exec(cli.output())![1]!;
  expect((await service.request('GET', '/webhooks', { apiKey: siteKey })).body.Webhooks).toHaveLength(1);

  const basket = (await service.request('POST', '/basket', { token: alice })).body.Guid as string;
  await service.request('POST', `/basket/${basket}/line`, {
    token: alice,
    json: { ProjectGuid: await service.project(3), Quantity: 1 },
  });
  await service.request('POST', `/basket/${basket}/checkout`, { token: alice });
  await until('the delivery', () => cli.output().includes('signature verified'), 15_000);
  expect(cli.output()).toMatch(/BasketCheckedOut [0-9a-f]{32} signature verified\n\{"type":"BasketCheckedOut"/);

  cli.child.kill('SIGINT');
  expect(await cli.exited).toBe(0);
  expect(cli.output()).toContain(`Deleted webhook ${webhookId}.`);
  expect((await service.request('GET', '/webhooks', { apiKey: siteKey })).body.Webhooks).toEqual([]);
}, 40_000);

it('prints the refusal of a stack that does not allow loopback receivers, naming the switch (--url wins over BASE)', async () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = 'false';
  try {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const cli = run(
      closed,
      'bin/webhooks.ts',
      '--listen',
      '--key',
      siteKey,
      '--events',
      'OrderCreated',
      '--url',
      service.url,
    );
    expect(await cli.exited).toBe(1);
    expect(cli.output()).toMatch(/WEBHOOK_ALLOW_LOOPBACK=true/);
  } finally {
    process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
  }
  expect((await service.request('GET', '/webhooks', { apiKey: siteKey })).body.Webhooks).toEqual([]);
});

it.each([
  ['bin/webhooks.ts', '--listen', '--key', 'some-key', '--events', 'OrderCreated'],
  ['bin/smoke.ts', '--token', 'some-token', ...API_KEY_SCOPES.flatMap((scope) => [`--${scope}-key`, 'some-key'])],
])('%s pointed at a closed port says in one line which address it tried, and exits 1', async (script, ...args) => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  const cli = run(closed, script, ...args);
  expect(await cli.exited).toBe(1);
  expect(cli.output()).toBe(
    `cannot connect to the service at ${closed} (BASE): ECONNREFUSED. Is npm start running there? ` +
      'Set BASE to its address (npm start prints the line that sets it) or pass --url.\n',
  );
});
