/**
 * Every `sh` example in README.md, run in order as one bash script against a fresh local service, the way a
 * reader pastes them after `npm start`. A failing curl (`-f`) or command fails the test.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { temporaryDataDir } from '../support/data-dir.ts';

const run = promisify(execFile);
const dataDir = temporaryDataDir('photo-commerce-readme-');
let service: TestService;

beforeAll(async () => {
  service = await dataDir.start({ env: { PULL_ALLOW_LOOPBACK: 'true' } });
});
afterAll(() => dataDir.remove());

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
    env: { ...process.env, BASE: service.url, DATA_DIR: dataDir.path },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 120_000,
  });
  expect(stdout).toContain('"OrderTotal"');
}, 150_000);
