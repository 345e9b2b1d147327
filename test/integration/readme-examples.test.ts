/**
 * Every `sh` example in README.md and docs/*.md, run against a fresh local service the way a reader pastes them
 * after `npm start`: each file's examples in order, verbatim, as one bash script of its own (each file starts
 * with the set-up it needs). A failing curl (`-f`) or command fails the test.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

function shExamples(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

const documents = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const examplesOf = new Map(documents.map((file) => [file, shExamples(readFileSync(file, 'utf8'))]));

it('finds examples in the README and the API reference', () => {
  expect(examplesOf.get('README.md')?.length).toBeGreaterThan(0);
  expect(examplesOf.get('docs/api.md')?.length).toBeGreaterThan(3);
});

it('keeps installs, deploys and benchmarks out of the examples that run', () => {
  // `sh` blocks are run; installs, deploys and benchmarks belong in `bash` blocks, which are shown only.
  for (const examples of examplesOf.values())
    for (const example of examples)
      expect(example).not.toMatch(
        /\bnpm (ci|install)\b|\bcdk (deploy|destroy|bootstrap)\b|\bnpm run (bench|soak|smoke)\b|\baws /,
      );
});

async function runExamples(file: string): Promise<string> {
  const script = ['set -euo pipefail', ...(examplesOf.get(file) ?? [])].join('\n');
  const { stdout } = await run('bash', ['-c', script], {
    cwd: process.cwd(),
    env: { ...process.env, BASE: service.url, DATA_DIR: dataDir.path },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 120_000,
  });
  return stdout;
}

const withExamples = documents.filter((file) => (examplesOf.get(file)?.length ?? 0) > 0);

/**
 * Lines of the output that hold more than one answer, or an answer run into other output: every line where a
 * JSON answer starts must be that answer alone. A curl that prints a body without `-w '\\n'` runs its answer
 * into the next command's output.
 */
function runTogether(stdout: string): string[] {
  return stdout.split('\n').filter((line) => {
    const start = line.search(/[{[]"/);
    if (start < 0) return false;
    try {
      JSON.parse(line);
      return false;
    } catch {
      return true;
    }
  });
}

it.each(withExamples)(
  'runs every example of %s against the local service, one answer per line',
  async (file) => {
    const stdout = await runExamples(file);
    if (file === 'README.md' || file === 'docs/api.md') expect(stdout).toContain('"OrderTotal"');
    expect(runTogether(stdout), stdout.slice(-3000)).toEqual([]);
    expect(stdout.endsWith('\n')).toBe(true);
  },
  150_000,
);
