/**
 * The CLIs (api-key, seed, renditions, expire-ttl) on a DATA_DIR that no `npm start` serves start storage of
 * their own under the data folder's lock, as `npm start` does: two engines never open the same data. Two
 * CLIs at once both finish (the second waits for the first); `npm start` meanwhile is refused with one line;
 * a folder held past the wait ends the command with one line too. The CLIs here run on the test run's shared
 * engine (a table per data folder), which takes the lock all the same.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectOrStartStorage } from '../../lib/local/shared-storage.ts';
import { LOCK_FILE, StartRefused } from '../../lib/local/single-start.ts';
import { temporaryDataDir } from '../support/data-dir.ts';

const dataDir = temporaryDataDir('photo-commerce-cli-lock-');
afterAll(() => dataDir.remove());

/** `npm start` on the data folder, without the test run's shared engine: its own DynamoDB Local, as on a laptop. */
function npmStart(): Promise<{ code: number | null; stderr: string }> {
  const { DYNAMODB_LOCAL_POOL: _shared, ...environment } = process.env;
  const child = spawn(process.execPath, ['bin/local.ts'], {
    env: { ...environment, DATA_DIR: dataDir.path, PORT: '0', CHECKOUT_URL: 'http://127.0.0.1:0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const guard = setTimeout(() => child.kill('SIGTERM'), 20_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stderr });
    }),
  );
}

describe('the CLIs and the data folder', () => {
  it('two CLIs at once on the same DATA_DIR both finish, one after the other', async () => {
    const [first, second] = await Promise.all([
      dataDir.cli('bin/api-key.ts', '--name', 'first', '--scope', 'catalog'),
      dataDir.cli('bin/api-key.ts', '--name', 'second', '--scope', 'site'),
    ]);
    expect([first.code, second.code], `${first.stderr}${second.stderr}`).toEqual([0, 0]);
    const listed = await dataDir.cli('bin/api-key.ts', '--list');
    expect(listed.stdout).toMatch(/^first\tcatalog\t/m);
    expect(listed.stdout).toMatch(/^second\tsite\t/m);
  }, 60_000);

  it('npm start is refused with one line while a CLI holds the folder, and the CLI keeps it', async () => {
    const storage = await connectOrStartStorage(dataDir.path);
    try {
      const { code, stderr } = await npmStart();
      expect(code).toBe(1);
      const lines = stderr.trim().split('\n');
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/DATA_DIR .* is in use by pid \d+ \(another npm start, or a command/);
    } finally {
      await storage.close();
    }
  }, 60_000);

  it('waits while another process holds the folder, and gives up with StartRefused past the wait', async () => {
    // Another live process (this test's parent) holds the lock; no server published endpoints.
    writeFileSync(join(dataDir.path, LOCK_FILE), `${process.ppid}\n`);
    const started = Date.now();
    await expect(connectOrStartStorage(dataDir.path, 600)).rejects.toBeInstanceOf(StartRefused);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    const waiting = connectOrStartStorage(dataDir.path, 10_000);
    setTimeout(() => rmSync(join(dataDir.path, LOCK_FILE)), 400).unref();
    const storage = await waiting;
    await storage.close();
  }, 30_000);
});
