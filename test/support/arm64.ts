/**
 * Running linux-arm64 code here as Lambda's arm64 runs it: Debian's qemu-user-static emulates the CPU, the
 * arm64 Node of lambda-arm64/ (ARM64_NODE, the root `node` dev dependency's version) runs the script, and
 * Debian's arm64 C libraries (libc6:arm64, libstdc++6:arm64, multiarch: the loader at
 * /lib/ld-linux-aarch64.so.1, the rest in /usr/lib/aarch64-linux-gnu) serve it and sharp's binaries, which
 * need nothing else. `-L /` tells qemu the arm64 loader's root is this machine's own (QEMU_LD_PREFIX=/ would
 * do the same). .ci/run installs the Debian packages.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ARM64_NODE } from '../../lib/lambda-arm64.ts';

export const QEMU_AARCH64 = '/usr/bin/qemu-aarch64-static';

/** What running arm64 code needs from Debian: a file each package installs. */
const DEBIAN_PACKAGES: { path: string; name: string }[] = [
  { path: QEMU_AARCH64, name: 'qemu-user-static' },
  { path: '/lib/ld-linux-aarch64.so.1', name: 'libc6:arm64' },
  { path: '/usr/lib/aarch64-linux-gnu/libstdc++.so.6', name: 'libstdc++6:arm64' },
];

/** Why arm64 code cannot run here, with what to install; undefined when it can. `root`: for tests of this check. */
export function arm64Missing(root = '/', node = ARM64_NODE): string | undefined {
  const packages = DEBIAN_PACKAGES.filter(({ path }) => !existsSync(join(root, path))).map(({ name }) => name);
  const reasons = [];
  if (packages.length > 0)
    reasons.push(
      `Running arm64 code needs Debian's ${packages.join(', ')}. As root: dpkg --add-architecture arm64 && apt-get update && apt-get install -y qemu-user-static libc6:arm64 libstdc++6:arm64 (.ci/run does this).`,
    );
  if (!existsSync(node))
    reasons.push(`The arm64 Node (${node}) is not installed: run \`npm ci\` (its postinstall installs lambda-arm64/).`);
  return reasons.length > 0 ? reasons.join(' ') : undefined;
}

/**
 * What runs a script in the arm64 Node under qemu: spawn `command` with `args` and the script (the runner of
 * lib/local/bundles/function-process.ts, whose runtime stand-in then loads the asset on arm64).
 */
export const ARM64_RUNNER = { command: QEMU_AARCH64, args: ['-L', '/', ARM64_NODE] };
