/**
 * `npm run -s renditions -- --missing` on a running local stack: items stored before renditions existed
 * (no state on their record) get them, an undecodable one is Failed, and a second run finds nothing left:
 * a run that stops half way is finished by running it again. A library entry that disagrees with its item
 * record's renditions gets the record's.
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { temporaryDataDir } from '../support/data-dir.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';
import { libraryEntryKey, libraryEntrySortKey, libraryItemKey } from '../../functions/store/keys.ts';

const dataDir = temporaryDataDir('photo-commerce-renditions-');
let service: TestService;
let apiKey: string;

const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));
const credentials = {
  region: LOCAL_AWS_ENV.AWS_REGION,
  credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
};

beforeAll(async () => {
  service = await dataDir.start();
  apiKey = await service.apiKey('backfill-test', 'library');
}, 60_000);
afterAll(() => dataDir.remove());

/** Puts an item back to how items stored before renditions look: no state, no rendition objects. */
async function asBeforeRenditions(itemGuid: string): Promise<void> {
  const table = DynamoDBDocumentClient.from(
    new DynamoDBClient({ ...credentials, endpoint: service.storage.dynamoEndpoint }),
  );
  const bucket = new S3Client({ ...credentials, endpoint: service.storage.s3Endpoint, forcePathStyle: true });
  const Key = { PK: `LIBITEM#${itemGuid}`, SK: 'LIBITEM' };
  const { Item } = await table.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key, ConsistentRead: true }));
  await table.send(
    new UpdateCommand({ TableName: process.env.TABLE_NAME, Key, UpdateExpression: 'REMOVE renditions' }),
  );
  for (const name of ['thumbnail', 'preview'])
    await bucket.send(
      new DeleteObjectCommand({ Bucket: process.env.BUCKET_NAME, Key: `${Item!.objectKey}.${name}.webp` }),
    );
}

const renditionsOf = async (itemGuid: string) =>
  (await service.request('GET', `/library/${itemGuid}`, { apiKey })).body.LibraryItem.Renditions;

describe('npm run -s renditions -- --missing', () => {
  it('makes the renditions of items that have none, once', async () => {
    const form = new FormData();
    for (const name of ['heic.heic', 'rendition-corrupt-pixels.png', 'jpeg-progressive.jpg'])
      form.append(name, new Blob([fixture(name)]), name);
    const pushed = await fetch(`${service.url}/library/multi/push`, {
      method: 'POST',
      headers: { 'X-SERVICE-API-Key': apiKey },
      body: form,
    });
    const guids = ((await pushed.json()) as { LibraryItems: { ItemGuid: string }[] }).LibraryItems.map(
      (item) => item.ItemGuid,
    );
    await service.drainEvents();
    const [heic, corrupt, untouched] = guids as [string, string, string];
    await asBeforeRenditions(heic);
    await asBeforeRenditions(corrupt);
    expect(await renditionsOf(heic)).toEqual({ Status: 'Pending' });
    const readyBefore = await renditionsOf(untouched);

    const run = await dataDir.cli('bin/renditions.ts', '--missing');
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toEqual(expect.arrayContaining([`${heic}\tReady`, `${corrupt}\tFailed`, 'Ready\t1', 'Failed\t1']));
    expect(lines.some((line) => line.startsWith(untouched))).toBe(false);
    expect(await renditionsOf(heic)).toMatchObject({ Status: 'Ready', Preview: { Width: 30, Height: 20 } });
    expect((await renditionsOf(corrupt)).Status).toBe('Failed');
    expect((await renditionsOf(untouched)).Preview.Width).toBe(readyBefore.Preview.Width);
    expect((await fetch((await renditionsOf(heic)).Preview.Url)).status).toBe(200);

    const again = await dataDir.cli('bin/renditions.ts', '--missing');
    expect(again).toMatchObject({ code: 0, stdout: '' });
  });

  it("copies the item record's renditions onto a library entry that disagrees with it", async () => {
    const pushed = await fetch(`${service.url}/library/push`, {
      method: 'POST',
      headers: { 'X-SERVICE-API-Key': apiKey },
      body: (() => {
        const form = new FormData();
        form.append('image', new Blob([fixture('jpeg-progressive.jpg')]), 'a.jpg');
        return form;
      })(),
    });
    const { LibraryItem, ProductBuilderUrl } = (await pushed.json()) as {
      LibraryItem: { ItemGuid: string };
      ProductBuilderUrl: string;
    };
    await service.drainEvents();
    const userId = `backfill-entry-${Date.now()}`;
    const token = await service.token(userId);
    const claim = await service.request('POST', '/library/claim', { token, json: { ProductBuilderUrl } });
    expect(claim.status, claim.text).toBe(200);
    // The entry as a claim that read the item before its renditions were recorded left it.
    const table = DynamoDBDocumentClient.from(
      new DynamoDBClient({ ...credentials, endpoint: service.storage.dynamoEndpoint }),
    );
    const item = (
      await table.send(
        new GetCommand({
          TableName: process.env.TABLE_NAME,
          Key: libraryItemKey(LibraryItem.ItemGuid),
          ConsistentRead: true,
        }),
      )
    ).Item!;
    const entryKey = libraryEntryKey(userId, libraryEntrySortKey(item as never));
    await table.send(
      new UpdateCommand({ TableName: process.env.TABLE_NAME, Key: entryKey, UpdateExpression: 'REMOVE renditions' }),
    );
    expect((await service.request('GET', '/library', { token })).body.LibraryItems[0].Renditions.Status).toBe(
      'Pending',
    );

    const run = await dataDir.cli('bin/renditions.ts', '--missing');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([`${LibraryItem.ItemGuid}\tEntryRepaired`, 'EntryRepaired\t1']);
    const entry = (
      await table.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: entryKey, ConsistentRead: true }))
    ).Item!;
    expect(entry.renditions).toEqual(item.renditions);
    expect((await service.request('GET', '/library', { token })).body.LibraryItems[0].Renditions.Status).toBe('Ready');
    expect(await dataDir.cli('bin/renditions.ts', '--missing')).toMatchObject({ code: 0, stdout: '' });
  });

  it('refuses a call without --missing, or with a table but no bucket', async () => {
    expect((await dataDir.cli('bin/renditions.ts')).code).toBe(2);
    expect((await dataDir.cli('bin/renditions.ts', '--missing', '--table', 'T')).code).toBe(2);
  });
});
