/**
 * The smoke flow a deployer runs against their stage (npm run smoke), here against the local service, with
 * pull from a loopback image server (PULL_ALLOW_LOOPBACK=true), and through the CLI itself once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSmoke, SMOKE_PNG } from '../../lib/smoke.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let images: Server;
let imageUrl: string;
let credentials: { token: string; apiKey: string; internalKey: string };

beforeAll(async () => {
  service = await startTestService({ env: { PULL_ALLOW_LOOPBACK: 'true' } });
  images = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(SMOKE_PNG.length) });
    response.end(SMOKE_PNG);
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/smoke.png`;
  credentials = { token: await service.token('smoke-user'), apiKey: await service.apiKey('smoke-app', 'library'), internalKey: await service.apiKey('smoke-site', 'internal') };
});

afterAll(async () => {
  await new Promise((resolve) => images?.close(resolve));
  await service?.close();
});

describe('smoke flow', () => {
  it('passes every step against the local service', async () => {
    const result = await runSmoke({ url: service.url, imageUrl, ...credentials });
    expect(result.skipped).toEqual([]);
    expect(result.passed).toEqual([
      'health',
      'credentials are required',
      'project price (internal key)',
      'basket and lines',
      'checkout',
      'completion (idempotent)',
      'orders',
      'push',
      'pull',
      'large-file upload (presigned)',
      'builder',
    ]);
  });

  it('runs from the command line and skips pull without --image-url', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['bin/smoke.ts', '--url', service.url, '--token', credentials.token, '--api-key', credentials.apiKey, '--internal-key', credentials.internalKey],
      { cwd: new URL('../../', import.meta.url).pathname },
    );
    expect(stdout).toContain('ok   builder');
    expect(stdout).toMatch(/smoke passed: \d+ steps, skipped: pull/);
  });
});
