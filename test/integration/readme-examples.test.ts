/**
 * Every `sh` example in README.md, run in order as one bash script against a fresh local service, the way a
 * reader pastes them after `npm start`. A failing curl (`-f`) or command fails the test.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'photo-commerce-readme-'));
let service: TestService;

beforeAll(async () => {
  service = await startTestService({ dataDir, env: { PULL_ALLOW_LOOPBACK: 'true' } });
});
afterAll(async () => {
  await service?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function readmeExamples(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

it('runs every README example against the local service', async () => {
  const examples = readmeExamples(readFileSync('README.md', 'utf8'));
  expect(examples.length).toBeGreaterThan(3);
  // `sh` blocks are run; installs, deploys and benchmarks belong in `bash` blocks, which are shown only.
  for (const example of examples) expect(example).not.toMatch(/\bnpm (ci|install)\b|\bcdk (deploy|destroy|bootstrap)\b|\bnpm run (bench|soak|smoke)\b|\baws /);
  const script = ['set -euo pipefail', ...examples].join('\n');
  const { stdout } = await run('bash', ['-c', script], {
    cwd: process.cwd(),
    env: { ...process.env, BASE: service.url, DATA_DIR: dataDir },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 120_000,
  });
  expect(stdout).toContain('"OrderTotal"');
}, 150_000);
