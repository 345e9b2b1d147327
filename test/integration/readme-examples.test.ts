/**
 * Every runnable example in README.md and docs/*.md, run against a fresh local service the way a reader pastes
 * them after `npm start`: each file's examples in order, verbatim, as one script of its own (each file starts
 * with the set-up it needs), under the shell its fences name: `sh` blocks under `sh` (dash on Debian, the
 * strictest of the usual ones), `bash` blocks under bash. `shell` blocks are shown, never run. A failing curl
 * (`-f`) or command fails the test.
 */
import { execFile, execFileSync } from 'node:child_process';
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

type Shell = 'sh' | 'bash';
interface Example {
  shell: Shell;
  code: string;
}

function runnableExamples(markdown: string): Example[] {
  return [...markdown.matchAll(/^```(sh|bash)\n([\s\S]*?)^```$/gm)].map((match) => ({
    shell: match[1] as Shell,
    code: match[2] ?? '',
  }));
}

const documents = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const examplesOf = new Map(documents.map((file) => [file, runnableExamples(readFileSync(file, 'utf8'))]));
/** The shell of a file's examples: they run as one script, so its blocks name one. */
const shellOf = (file: string): Shell => examplesOf.get(file)?.[0]?.shell ?? 'sh';

it('finds examples in the README and the API reference', () => {
  expect(examplesOf.get('README.md')?.length).toBeGreaterThan(0);
  expect(examplesOf.get('docs/api.md')?.length).toBeGreaterThan(3);
});

it("names one shell in each file's runnable blocks, and the README's first run needs no more than POSIX sh", () => {
  for (const [file, examples] of examplesOf)
    expect(new Set(examples.map((example) => example.shell)), file).toEqual(
      new Set(examples.length ? [shellOf(file)] : []),
    );
  expect(shellOf('README.md')).toBe('sh');
});

it('keeps installs, deploys and benchmarks out of the examples that run', () => {
  // `sh` and `bash` blocks are run; installs, deploys and benchmarks belong in `shell` blocks, which are shown only.
  for (const examples of examplesOf.values())
    for (const { code: example } of examples)
      expect(example).not.toMatch(
        /\bnpm (ci|install)\b|\bcdk (deploy|destroy|bootstrap)\b|\bnpm run (bench|soak|smoke)\b|\baws /,
      );
});

async function runExamples(file: string): Promise<string> {
  const shell = shellOf(file);
  // pipefail is bash's (dash has none): a sh example must not hide a failure in a pipe's first command.
  const options = shell === 'bash' ? 'set -euo pipefail' : 'set -eu';
  const script = [options, ...(examplesOf.get(file) ?? []).map((example) => example.code)].join('\n');
  const { stdout } = await run(shell, ['-c', script], {
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

/** What `git status` lists: an example that leaves a file in the repository shows here. */
const repositoryChanges = () =>
  execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });

it.each(withExamples)(
  'runs every example of %s against the local service, one answer per line, leaving the repository as it was',
  async (file) => {
    const before = repositoryChanges();
    const stdout = await runExamples(file);
    if (file === 'README.md' || file === 'docs/api.md') expect(stdout).toContain('"OrderTotal"');
    expect(runTogether(stdout), stdout.slice(-3000)).toEqual([]);
    expect(stdout.endsWith('\n')).toBe(true);
    expect(repositoryChanges()).toBe(before);
  },
  150_000,
);

it("runs the README's first run a second time in the same folder", async () => {
  const stdout = await runExamples('README.md');
  expect(stdout).toContain('"FileMimeType":"image/jpeg"');
}, 150_000);
