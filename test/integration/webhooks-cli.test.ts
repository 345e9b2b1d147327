/**
 * `npm run -s webhooks -- --listen` against the local stack: it registers a loopback receiver for the key,
 * prints a delivery with its verdict (verified by `standardwebhooks`), and deletes the webhook on Ctrl-C
 * (SIGINT); a stack that refuses loopback receivers gets its refusal printed, naming the switch.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
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

function run(...args: string[]): {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number>;
} {
  const child = spawn(process.execPath, ['bin/webhooks.ts', ...args], { cwd: process.cwd() });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  return { child, output: () => text, exited };
}

it('listens: registers, prints a verified delivery, deletes the webhook on Ctrl-C', async () => {
  const cli = run('--listen', '--key', siteKey, '--events', 'BasketCheckedOut', '--url', service.url);
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

it('prints the refusal of a stack that does not allow loopback receivers, naming the switch', async () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = 'false';
  try {
    const cli = run('--listen', '--key', siteKey, '--events', 'OrderCreated', '--url', service.url);
    expect(await cli.exited).toBe(1);
    expect(cli.output()).toMatch(/WEBHOOK_ALLOW_LOOPBACK=true/);
  } finally {
    process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
  }
  expect((await service.request('GET', '/webhooks', { apiKey: siteKey })).body.Webhooks).toEqual([]);
});
