/**
 * A test file's own DATA_DIR, as `npm start` keeps one: the service can be restarted on it, and the bin/
 * CLIs (token, api-key, seed) run beside the service on the same directory. Removed when the file ends.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LocalServiceOptions } from '../../lib/local/service.ts';
import { startTestService, type TestService } from './service.ts';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface DataDir {
  path: string;
  /** Starts the service on this directory (again, after a close: the restart keeps every write). */
  start(options?: Omit<LocalServiceOptions, 'dataDir'>): Promise<TestService>;
  /** A bin/ script on this directory with the test's Node 24, as `npm run -s <script>` would run it, minus npm's start-up. */
  cli(script: string, ...args: string[]): Promise<CliResult>;
  /** Closes the service last started, then removes the directory. */
  remove(): Promise<void>;
}

export function temporaryDataDir(prefix: string): DataDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  let service: TestService | undefined;
  return {
    path,
    async start(options = {}) {
      service = await startTestService({ ...options, dataDir: path });
      return service;
    },
    async cli(script, ...args) {
      try {
        const { stdout, stderr } = await run(process.execPath, [script, ...args], {
          env: { ...process.env, DATA_DIR: path },
          cwd: process.cwd(),
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as CliResult;
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    },
    async remove() {
      await service?.close();
      rmSync(path, { recursive: true, force: true });
    },
  };
}
