/**
 * Crash recovery, short version of `npm run soak`'s crash phase: the service as a child process, a mixed
 * workload from concurrent clients, SIGKILL halfway, a restart on the same DATA_DIR, the rest of the
 * workload, then the audit: every write acknowledged before (and after) the kill is there, every basket
 * total is the sum of its lines, every completed checkout made exactly one order, no stray S3 object.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ensureTableAndBucket, LOCAL_AWS_ENV, startLocalStorage } from '../../lib/local/storage.ts';
import { listObjectKeys } from '../support/store-snapshot.ts';
import {
  audit,
  formatReport,
  killServer,
  newClients,
  prepare,
  runWorkload,
  startServer,
  stopServer,
  Target,
  type ServerProcess,
} from '../soak/workload.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'photo-commerce-crash-test-'));
let server: ServerProcess | undefined;

afterAll(async () => {
  if (server) await stopServer(server);
  rmSync(dataDir, { recursive: true, force: true });
});

it('loses no acknowledged write when the server is killed with SIGKILL mid-workload and restarted', async () => {
  server = await startServer(dataDir);
  const target = new Target();
  target.up(server.url);
  const fixture = await prepare(target, dataDir);
  const models = await newClients(fixture, 8);
  let killed = false;
  const { stats, failures } = await runWorkload(models, fixture, target, {
    clients: 8,
    // Counted, not timed, so a slow machine does the same work: the kill lands once 40 requests were
    // answered (with up to 8 more in flight), and the run ends at 80 answers, at least 32 of them from the
    // restarted server. A 6 s window with the kill at 3 s got only 37-49 requests done on a loaded machine.
    until: { answered: 80 },
    interrupt: {
      at: { answered: 40 },
      run: async () => {
        target.down();
        await killServer(server as ServerProcess);
        killed = true;
        server = await startServer(dataDir);
        target.up(server.url);
      },
    },
  });
  const result = await audit(models, fixture, target);
  const report = formatReport('crash recovery', stats, result, failures);
  expect(killed).toBe(true);
  expect(failures, report).toEqual([]);
  expect(result.problems, report).toEqual([]);
  expect(stats.requests, report).toBeGreaterThan(50);
}, 120_000);

it('restarts on storage a kill left in the middle of an S3 PUT, without the object that PUT never acknowledged', async () => {
  const storageDir = mkdtempSync(join(tmpdir(), 'photo-commerce-torn-put-'));
  const bucket = 'photo-commerce-images';
  try {
    let storage = await startLocalStorage({ dataDir: storageDir });
    await ensureTableAndBucket(storage, 'photo-commerce', bucket);
    const s3 = new S3Client({
      endpoint: storage.s3Endpoint,
      region: LOCAL_AWS_ENV.AWS_REGION,
      forcePathStyle: true,
      credentials: {
        accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID,
        secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY,
      },
    });
    for (const key of ['library/owner/whole', 'library/owner/torn'])
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
    s3.destroy();
    await storage.close();
    // What SIGKILL between the open (which truncates) and the write of the metadata file leaves behind.
    const objectDir = join(storageDir, 's3', bucket, 'library', 'owner');
    expect(readdirSync(objectDir)).toContain('torn._S3rver_metadata.json');
    writeFileSync(join(objectDir, 'torn._S3rver_metadata.json'), '');

    storage = await startLocalStorage({ dataDir: storageDir });
    try {
      await ensureTableAndBucket(storage, 'photo-commerce', bucket);
      expect([...(await listObjectKeys(storage, bucket)).keys()]).toEqual(['library/owner/whole']);
    } finally {
      await storage.close();
    }
  } finally {
    rmSync(storageDir, { recursive: true, force: true });
  }
});
