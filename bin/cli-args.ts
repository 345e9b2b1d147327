/** Tiny shared argument parsing for the local CLIs (`--name value` and `--flag`). */
import { parseArgs } from 'node:util';

export function cliArgs<T extends Record<string, { type: 'string' | 'boolean' }>>(options: T) {
  try {
    return parseArgs({ options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
}

export const dataDirFromEnv = (): string => process.env.DATA_DIR ?? '.data';
