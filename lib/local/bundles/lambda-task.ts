/**
 * Where a synthesized asset runs locally: a copy of it outside the repository, laid out as Lambda lays it
 * out (`<root>/var/task/`, nothing beside it), so what the asset reaches beyond itself fails here as in
 * Lambda: `../../package.json` is no file, and a package the bundle does not carry (an import by a computed
 * name esbuild left alone) is not found, where in cdk.out both reached into the repository.
 *
 * An asset may ship native packages for Lambda's platform (the renditions asset: sharp's linux-arm64
 * binaries from lambda-arm64/) that this machine cannot load. The copy then gets, beside each of them, its
 * twin for this machine (`@img/sharp-linux-arm64` -> `@img/sharp-linux-x64`, same version) from the
 * repository's node_modules: exactly the twins of what the asset ships, found through the `os` and `cpu` of
 * the shipped packages' own package.json, and nothing else of the repository.
 *
 * The copies are made once per asset hash, platform and architecture, under os.tmpdir(), and kept for
 * later runs: an asset's folder name is the hash of its contents, so a copy never goes stale, and the
 * test run's processes and `npm start` share them. Each is made in a scratch folder and renamed into
 * place, so runs making the same copy at once never see half of one.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const REPOSITORY_MODULES = fileURLToPath(new URL('../../../node_modules', import.meta.url));
/** Where the copies are kept. */
export const LAMBDA_TASKS = join(tmpdir(), 'photo-commerce-lambda');

interface PackageJson {
  name: string;
  version: string;
  os?: string[];
  cpu?: string[];
}

const packageJson = (folder: string): PackageJson =>
  JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as PackageJson;

/** The package folders of `modules` (scoped ones included), as names relative to it. */
function packagesIn(modules: string): string[] {
  if (!existsSync(modules)) return [];
  return readdirSync(modules).flatMap((name) =>
    name.startsWith('@')
      ? readdirSync(join(modules, name)).map((scoped) => `${name}/${scoped}`)
      : name.startsWith('.')
        ? []
        : [name],
  );
}

/**
 * The native packages the asset ships for another platform than `platform`-`arch`, each with its twin for
 * it: the name with the shipped `<os>-<cpu>` in place of this machine's (sharp's platform packages are named
 * so), which the repository's node_modules must hold in the same version.
 */
function nativeTwins(assetDir: string, platform: string, arch: string): string[] {
  const modules = join(assetDir, 'node_modules');
  return packagesIn(modules).flatMap((name) => {
    const shipped = packageJson(join(modules, name));
    const fits = (shipped.os ?? [platform]).includes(platform) && (shipped.cpu ?? [arch]).includes(arch);
    if (fits) return [];
    const foreign = `${shipped.os?.[0] ?? platform}-${shipped.cpu?.[0] ?? arch}`;
    const twin = name.replace(foreign, `${platform}-${arch}`);
    const folder = join(REPOSITORY_MODULES, twin);
    const found = twin !== name && existsSync(join(folder, 'package.json')) ? packageJson(folder) : undefined;
    if (found?.version !== shipped.version || !(found.cpu ?? [arch]).includes(arch))
      throw new Error(
        `${assetDir} ships ${name}@${shipped.version} (${foreign}), which cannot load here; its twin for ${platform}-${arch}, ${twin}@${shipped.version}, is not in ${REPOSITORY_MODULES} (run \`npm ci\`)`,
      );
    return [twin];
  });
}

/** A node_modules folder in or above `folder` would resolve packages Lambda has not: none may be there. */
function moduleFoldersAbove(folder: string): string[] {
  const found: string[] = [];
  for (let at = folder; ; at = dirname(at)) {
    if (existsSync(join(at, 'node_modules'))) found.push(join(at, 'node_modules'));
    if (at === dirname(at)) return found;
  }
}

/**
 * The folder `assetDir` runs from locally (Lambda's /var/task): its copy outside the repository, with the
 * twins of its native packages for `arch` (default this machine's; `arm64` for an asset run under qemu).
 */
export function lambdaTaskRoot(assetDir: string, arch: string = process.arch): string {
  const platform = process.platform;
  const root = join(LAMBDA_TASKS, `${basename(assetDir)}-${platform}-${arch}`);
  const taskRoot = join(root, 'var', 'task');
  if (existsSync(taskRoot)) return taskRoot;
  const above = moduleFoldersAbove(LAMBDA_TASKS);
  if (above.length > 0)
    throw new Error(
      `${above.join(', ')} would give the assets run from ${LAMBDA_TASKS} packages they do not carry: set TMPDIR to a folder with no node_modules above it`,
    );
  const scratch = `${root}.${randomUUID()}`;
  const scratchTask = join(scratch, 'var', 'task');
  try {
    cpSync(assetDir, scratchTask, { recursive: true });
    for (const twin of nativeTwins(assetDir, platform, arch)) {
      mkdirSync(dirname(join(scratchTask, 'node_modules', twin)), { recursive: true });
      cpSync(join(REPOSITORY_MODULES, twin), join(scratchTask, 'node_modules', twin), { recursive: true });
    }
    renameSync(scratch, root);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    // Another run made the same copy first: it is the same.
    if (!existsSync(taskRoot)) throw error;
  }
  return taskRoot;
}
