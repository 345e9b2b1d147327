/**
 * The steps of client/README.md's "Try it in a new project", run as written: its `bash` block (pack the
 * client in the repository, make a new empty folder, `npm init -y`, `npm install` the tarball) in bash from
 * the repository's root, and its run command in that folder. npm runs offline and without audit (the
 * package has no dependencies; tests reach no registry); `mktemp -d` makes the folder under `scratch`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const repo = fileURLToPath(new URL('../../', import.meta.url));
const readme = () => readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The code block of `language` whose first line starts with `firstLine`, in `markdown`. */
export function codeBlock(markdown: string, language: string, firstLine: string): string {
  const blocks = [...markdown.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))];
  const found = blocks.map((match) => match[1] as string).find((block) => block.startsWith(firstLine));
  if (found === undefined) throw new Error(`no \`\`\`${language} block starting "${firstLine}"`);
  return found;
}

const npmQuietly = { npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };

/** Runs the README's set-up block; answers the new project's folder, with the client installed. */
export async function installAsTheReadmeSays(scratch: string): Promise<string> {
  const steps = codeBlock(readme(), 'bash', '# In this repository');
  // `pwd` after the steps: the folder they ended in.
  const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${steps}pwd`], {
    cwd: repo,
    env: { ...process.env, ...npmQuietly, TMPDIR: scratch },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim().split('\n').at(-1) as string;
}

/**
 * A README command block (the first line starts with `firstLine`) run in `project`; `REPO` is what the set-up
 * block set it to, the repository's folder.
 */
export async function runAsTheReadmeSays(
  project: string,
  env: NodeJS.ProcessEnv,
  firstLine = 'node ',
): Promise<string> {
  const command = codeBlock(readme(), 'bash', firstLine);
  const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${command}`], {
    cwd: project,
    env: { ...env, REPO: repo },
  });
  return stdout;
}
