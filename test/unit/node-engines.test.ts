/**
 * The Node versions README.md names for the install are the root package's `engines`, and `npm ci` is quiet
 * (no EBADENGINE warning) on each of them: every package of the lock file that npm installed here accepts the
 * lowest version of each named line, and `npm ci --dry-run` on the test's own Node (24) warns of nothing.
 * Offline: the lock file's `engines` fields are read, and a dry run fetches nothing.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
// npm's own range rules (semver, installed with the dev tools).
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

interface LockEntry {
  engines?: { node?: string };
}

const root = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };
const range = root.engines.node;

/** What `npm ci` installed here: optional packages of other platforms (and what only they need) are left out. */
const installedHere = (path: string) => path === '' || existsSync(join(path, 'package.json'));

/** The lowest version of each line the range names (22.12.0, 24.0.0, 26.0.0). */
const lowestOfEachLine = range.split('||').map((clause) => semver.minVersion(clause.trim())?.version as string);

describe('Node versions of the install', () => {
  it('README.md names the root engines range', () => {
    expect(readFileSync('README.md', 'utf8').replaceAll('\\|', '|')).toContain(`\`${range}\``);
    expect(lowestOfEachLine.length).toBeGreaterThan(1);
  });

  it.each(lowestOfEachLine)('every package npm installs accepts Node %s', (version) => {
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => installedHere(path) && entry.engines?.node !== undefined)
      .filter(([, entry]) => !semver.satisfies(version, entry.engines?.node as string))
      .map(([path, entry]) => `${path || '(root)'} wants node ${entry.engines?.node}`);
    expect(refusing).toEqual([]);
  });

  it("npm ci --dry-run on the test's Node warns of no engine", async () => {
    expect(semver.satisfies(process.version, range)).toBe(true);
    const { stdout, stderr } = await run('npm', ['ci', '--dry-run', '--no-audit', '--no-fund'], {
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    });
    expect(`${stdout}${stderr}`).not.toMatch(/EBADENGINE/);
  }, 60_000);
});
