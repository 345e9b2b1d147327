/**
 * The example of client/README.md, run verbatim by Node (its import pointed at the package's source)
 * against a fresh local service with the demo project registered, a token, a library key and a photo.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.ts';
import { jpeg } from '../../test/support/images.ts';

const run = promisify(execFile);
const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
const source = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'client-readme-'));
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
  rmSync(scratch, { recursive: true, force: true });
});

it('runs the README example', async () => {
  const example = /^```ts\n(\/\/ example\.ts[\s\S]*?)^```$/m.exec(readme)?.[1];
  expect(example).toBeDefined();
  const internalKey = await service.apiKey('readme-internal', 'internal');
  const registered = await service.request('PUT', '/project/0a1b2c3d4e5f40718293a4b5c6d7e8f9', { apiKey: internalKey, json: { UnitPrice: 29.99, Version: 1 } });
  expect(registered.status).toBe(200);
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(scratch, 'example.ts'), (example as string).replace("'@photo-commerce/client'", JSON.stringify(source)));
  writeFileSync(join(scratch, 'photo.jpg'), jpeg('readme'));
  const env = { ...process.env, BASE: service.url, TOKEN: await service.token('readme-user'), LIBRARY_KEY: await service.apiKey('readme-library', 'library') };
  const { stdout } = await run(process.execPath, ['example.ts'], { cwd: scratch, env });
  expect(stdout).toMatch(/^basket created \d{4}-\d\d-\d\dT.*Z; pay at http:\/\/127\.0\.0\.1:3001\/checkout\/[0-9a-f]{32}$/m);
  expect(stdout).toContain('400 ValidationFailed: ');
  expect(stdout).toContain('(fields: Quantity)');
  expect(stdout).toMatch(/^builder for both images: http:\/\/127\.0\.0\.1:3001\/builder\/\S+$/m);
  expect(stdout).toMatch(/^builder for the first: http:\/\/127\.0\.0\.1:3001\/builder\/\S+$/m);
});
