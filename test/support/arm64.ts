/**
 * Running linux-arm64 code here as Lambda's arm64 runs it: Debian's qemu-user-static emulates the CPU, the
 * arm64 Node of lambda-arm64/ (ARM64_NODE, the root `node` dev dependency's version) runs the script, and
 * Debian's arm64 C libraries (libc6:arm64, libstdc++6:arm64, multiarch: the loader at
 * /lib/ld-linux-aarch64.so.1, the rest in /usr/lib/aarch64-linux-gnu) serve it and sharp's binaries, which
 * need nothing else. `-L /` tells qemu the arm64 loader's root is this machine's own (QEMU_LD_PREFIX=/ would
 * do the same). .ci/run installs the Debian packages.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

/** The command line that runs `script` with `args` in the arm64 Node under qemu: spawn `command` with `args`. */
export const arm64Command = (script: string, args: readonly string[] = []): { command: string; args: string[] } => ({
  command: QEMU_AARCH64,
  args: ['-L', '/', ARM64_NODE, script, ...args],
});

const INVOKE_ASSET = fileURLToPath(new URL('invoke-asset.ts', import.meta.url));

export interface Arm64Invocation {
  /** The handler's answer; undefined when the process failed. */
  answer: unknown;
  exitCode: number | null;
  /** The function's logs. */
  stdout: string;
  stderr: string;
}

/**
 * Invokes the handler of the Lambda asset in `assetDir` once with `event`, on arm64 (test/support/invoke-asset.ts),
 * in an environment of `env` alone, as Lambda gives a function only its own.
 */
export async function invokeArm64(
  assetDir: string,
  event: unknown,
  env: Record<string, string>,
): Promise<Arm64Invocation> {
  const work = mkdtempSync(join(tmpdir(), 'invoke-arm64-'));
  try {
    const eventFile = join(work, 'event.json');
    const answerFile = join(work, 'answer.json');
    writeFileSync(eventFile, JSON.stringify(event));
    const { command, args } = arm64Command(INVOKE_ASSET, [assetDir, eventFile, answerFile]);
    const child = spawn(command, args, { env, cwd: assetDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    const answer = exitCode === 0 ? JSON.parse(readFileSync(answerFile, 'utf8')) : undefined;
    return { answer, exitCode, stdout, stderr };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
