/**
 * What a push, pull or large-file upload leaves behind when it never commits (its process died, its commit
 * failed, or its rollback failed as well: objects only, as its records are created in one transaction) is
 * swept once its intent expires: DynamoDB's TTL deletes the intent and the
 * table stream hands the deletion to the sweeper. Locally `service.expireTtl(now)` is that TTL process and
 * stream mapping (lib/local/ttl.ts), run at a chosen clock. Committed requests keep everything.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { startTestService, type TestService } from '../support/service.ts';
import { injectFault, type FaultHandle, type FaultRule } from '../support/faults.ts';
import { libraryObjectKeyOf, snapshotStore, storeDiff, type StoreSnapshot } from '../support/store-snapshot.ts';
import { multipartBody, pngOfSize, tinyPng } from '../support/multipart.ts';
import { refusalOf } from '../support/refusals.ts';

let service: TestService;
let clients: typeof import('../../functions/shared/clients/dynamodb.ts') &
  typeof import('../../functions/shared/clients/s3.ts');
let libraryKey: string;
let sweepAfterMs: number;
const installed: FaultHandle[] = [];

beforeAll(async () => {
  service = await startTestService({ env: { UPLOAD_MAX_BYTES: String(1024 * 1024) } });
  clients = {
    ...(await import('../../functions/shared/clients/dynamodb.ts')),
    ...(await import('../../functions/shared/clients/s3.ts')),
  };
  libraryKey = await service.apiKey('sweep-library', 'library');
  // Service modules load after the service has set the environment their clients read.
  sweepAfterMs = (await import('../../functions/domain/library.ts')).SWEEP_AFTER_MS;
});
afterEach(() => {
  for (const handle of installed.splice(0)) handle.remove();
});
afterAll(() => service?.close());

const fault = (client: 'dynamo' | 's3', rule: FaultRule) => {
  installed.push(injectFault(client === 'dynamo' ? clients.dynamoDbClient : clients.s3, rule));
};
const removeFaults = () => installed.splice(0).forEach((handle) => handle.remove());
/** The commit is one transaction: failing it (every SDK attempt) fails the commit, with nothing written. */
const commit = 'TransactWriteItemsCommand';
/** A clock past every intent written so far: SWEEP_AFTER_MS (an hour) and a margin. */
const afterSweepDelay = (extraMs = 0) => Date.now() + sweepAfterMs + 60_000 + extraMs;
/** Changes to library data only: API keys are created by the harness between snapshots. */
const libraryChanges = async (before: StoreSnapshot) =>
  storeDiff(before, await snapshotStore(service), (key) => key.startsWith('APIKEY'));
/** What kind of record or object each change is: `item added: LIBITEM#<guid>|LIBITEM` is `added LIBITEM`, `object added: library/<a>/<b>` is `added library`. */
const kindsOf = (changes: string[]) =>
  changes.map((change) => /^\w+ (\w+): ([^#/|]+)/.exec(change)?.slice(1).join(' ')).sort();
const count = (changes: string[], kind: string) => kindsOf(changes).filter((found) => found === kind).length;

const push = (count: number) => {
  const { body, contentType } = multipartBody(
    Array.from({ length: count }, (_, index) => ({
      name: 'image',
      filename: `${index}.png`,
      contentType: 'image/png',
      data: tinyPng(),
    })),
  );
  return service.request('POST', count === 1 ? '/library/push' : '/library/multi/push', {
    apiKey: libraryKey,
    body,
    headers: { 'Content-Type': contentType },
  });
};
/** A push whose commit fails: its objects stay for the sweeper, as those of a push killed just before its commit. */
async function abandonedPush(count: number): Promise<void> {
  fault('dynamo', { command: commit, kind: 'timeout' });
  const response = await push(count);
  removeFaults();
  expect(response.status).toBe(503);
}
/** A large-file upload whose completion copied the object, then failed at the commit (its decision with it). */
async function failedUpload(): Promise<{ ItemGuid: string }> {
  const ticket = (await service.request('POST', '/library/upload', { apiKey: libraryKey })).body as {
    ItemGuid: string;
    Upload: { Url: string; Fields: Record<string, string> };
  };
  const form = new FormData();
  for (const [name, value] of Object.entries(ticket.Upload.Fields)) form.append(name, value);
  form.append('file', new Blob([pngOfSize(300 * 1024)]), 'big.png');
  expect((await fetch(ticket.Upload.Url, { method: 'POST', body: form })).status).toBeLessThan(300);
  fault('dynamo', { command: commit, kind: 'timeout' });
  const response = await service.request('POST', `/library/upload/${ticket.ItemGuid}/complete`, { apiKey: libraryKey });
  removeFaults();
  expect(response.status).toBe(503);
  return ticket;
}
const builderFor = (itemGuid: string) =>
  service.request('POST', `/library/${itemGuid}/builder`, { apiKey: libraryKey });

describe('committed requests', () => {
  it('keep their items, objects and builder link when their intent expires; only the intent goes', async () => {
    expect(await service.expireTtl(afterSweepDelay())).toMatchObject({ retrying: 0 });
    const pushed = await push(2);
    expect(pushed.status).toBe(200);
    const before = await snapshotStore(service);
    expect([...before.items.keys()].filter((key) => key.startsWith('INGEST#'))).toHaveLength(1);

    expect(await service.expireTtl()).toEqual({ expired: 0, swept: 0, retrying: 0 });
    expect(await service.expireTtl(afterSweepDelay())).toEqual({ expired: 1, swept: 1, retrying: 0 });
    expect(kindsOf(await libraryChanges(before))).toEqual(['removed INGEST']);
    for (const item of pushed.body.LibraryItems as { ItemGuid: string }[]) {
      expect((await builderFor(item.ItemGuid)).status).toBe(200);
      expect(await libraryObjectKeyOf(service.storage, item.ItemGuid)).toBeDefined();
    }
  });

  it('a large-file upload finished by a retry after a failed completion keeps everything but its pending record', async () => {
    const ticket = await failedUpload();
    const retried = await service.request('POST', `/library/upload/${ticket.ItemGuid}/complete`, {
      apiKey: libraryKey,
    });
    expect(retried.status).toBe(200);
    const before = await snapshotStore(service);
    await service.expireTtl(afterSweepDelay(900_000));
    expect(kindsOf(await libraryChanges(before))).toEqual(['removed UPLOAD']);
    expect((await builderFor(ticket.ItemGuid)).status).toBe(200);
  });
});

describe('requests that never committed', () => {
  it('a multi push whose commit failed: no record of it at all, its objects gone once its intent expires', async () => {
    const before = await snapshotStore(service);
    await abandonedPush(3);

    const leftovers = await libraryChanges(before);
    expect(kindsOf(leftovers)).toEqual(['added INGEST', ...Array(3).fill('added library')]);
    const itemGuid = /library\/[0-9a-f]{32}\/([0-9a-f]{32})/.exec(leftovers.join('\n'))?.[1] as string;
    expect((await builderFor(itemGuid)).status).toBe(404);

    expect(await service.expireTtl(afterSweepDelay())).toEqual({ expired: 1, swept: 1, retrying: 0 });
    expect(await libraryChanges(before)).toEqual([]);
  });

  it('a refused multi push whose object deletes failed in the rollback: the objects go once its intent expires', async () => {
    const before = await snapshotStore(service);
    fault('s3', { command: 'DeleteObjectCommand', kind: 's3-internal' });
    const { body, contentType } = multipartBody([
      { name: 'image0', filename: 'big.png', contentType: 'image/png', data: pngOfSize(64 * 1024) },
      { name: 'image1', filename: 'notes.txt', contentType: 'image/png', data: Buffer.from('not an image') },
    ]);
    expect(
      (
        await service.request('POST', '/library/multi/push', {
          apiKey: libraryKey,
          body,
          headers: { 'Content-Type': contentType },
        })
      ).status,
    ).toBe(415);
    removeFaults();
    // The rollback stopped at the objects; the intent stays for the sweeper.
    expect(kindsOf(await libraryChanges(before))).toEqual(['added INGEST', 'added library']);

    await service.expireTtl(afterSweepDelay());
    expect(await libraryChanges(before)).toEqual([]);
  });

  it('a large-file upload whose commit failed after copying: gone once its pending upload expires', async () => {
    const before = await snapshotStore(service);
    const ticket = await failedUpload();
    // A retry would verify and commit again; none comes in time: once the presigned POST expired (900 s
    // here) it is refused, so no commit can race the sweeper.
    expect(kindsOf(await libraryChanges(before))).toEqual(['added UPLOAD', 'added library', 'added uploads']);
    const { completeUpload } = await import('../../functions/services/upload-service.ts');
    const { findApiKey } = await import('../../functions/store/api-key-store.ts');
    const keyId = (await findApiKey(libraryKey))!.keyId;
    expect(
      await refusalOf(completeUpload(keyId, ticket.ItemGuid, Date.now() + 900_000 + sweepAfterMs / 2 + 60_000)),
    ).toMatchObject({ status: 404, code: 'UploadNotFound' });
    expect(kindsOf(await libraryChanges(before))).toEqual(['added UPLOAD', 'added library', 'added uploads']);

    // The pending upload lives until its presigned POST expires (UPLOAD_EXPIRY_SECONDS), then SWEEP_AFTER_MS.
    expect(await service.expireTtl(afterSweepDelay())).toMatchObject({ expired: 0 });
    expect(await service.expireTtl(afterSweepDelay(900_000))).toEqual({ expired: 1, swept: 1, retrying: 0 });
    expect(await libraryChanges(before)).toEqual([]);
  });

  it('is handed to the sweeper again when the sweeper fails, as the stream retries a failed record', async () => {
    const before = await snapshotStore(service);
    await abandonedPush(1);

    // Every attempt fails while the fault stands: TTL has deleted the intent, its record waits in the stream.
    fault('s3', { command: 'ListObjectsV2Command', kind: 's3-internal' });
    expect(await service.expireTtl(afterSweepDelay())).toEqual({ expired: 1, swept: 0, retrying: 1 });
    expect(count(await libraryChanges(before), 'added INGEST')).toBe(0);
    expect(count(await libraryChanges(before), 'added library')).toBe(1);
    removeFaults();
    await service.drainStream();
    expect(await libraryChanges(before)).toEqual([]);
  });
});

describe('the sweeper handler', () => {
  it('acts on TTL deletions only: a delete by anyone else of an intent removes nothing', async () => {
    const before = await snapshotStore(service);
    await abandonedPush(1);
    const intent = [...(await snapshotStore(service)).items.entries()].find(
      ([key]) => key.startsWith('INGEST#') && !before.items.has(key),
    );
    expect(intent).toBeDefined();
    const { handler } = await import('../../functions/handlers/sweep-library-leftovers.ts');
    const { lambdaContext } = await import('../../lib/local/lambda-event.ts');
    const removedByPerson: DynamoDBRecord = {
      eventName: 'REMOVE',
      userIdentity: undefined,
      dynamodb: { OldImage: intent![1] as never, SequenceNumber: '1' },
    };
    expect(
      await handler(
        {
          Records: [
            removedByPerson,
            {
              ...removedByPerson,
              eventName: 'MODIFY',
              userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
            },
          ],
        },
        lambdaContext('sweep-library-leftovers'),
      ),
    ).toEqual({
      batchItemFailures: [],
    });
    expect(count(await libraryChanges(before), 'added library')).toBe(1);

    // Once its TTL does delete it, the request's leftovers go.
    await service.expireTtl(afterSweepDelay());
    expect(await libraryChanges(before)).toEqual([]);
  });
});
