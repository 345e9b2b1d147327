/**
 * The library's multi-record changes as transactions, over HTTP against the local stack: a commit (push,
 * completed upload) creates its records and its LibraryItemsAdded outbox record together, and a replayed
 * large-file completion answers what the first answered and writes nothing, so it can neither undo a claim
 * nor bring back an erased item (the two defects of issue 17); a builder link of the largest size a claim
 * allows (99 items) is claimed in three writes that every reader sees all at once or not at all.
 */
import { createHash } from 'node:crypto';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { png } from '../support/images.ts';
import { pngOfSize } from '../support/multipart.ts';
import { snapshotStore, storeDiff, type StoreSnapshot } from '../support/store-snapshot.ts';
import { pushFiles } from '../support/library-push.ts';

let service: TestService;
let apiKey: string;
let siteKey: string;
let seed = 1000;

/** Every push of this file carries at most this many images: the commit's ceiling (97 items, link, user, event). */
const MAX_ITEMS = 97;

beforeAll(async () => {
  // No renditions: each push would start one per image in this process, and every snapshot waits for them
  // (97 on a loaded machine outlasted the test); how renditions race claims is renditions-claim-race.test.ts's.
  service = await startTestService({
    env: { LIBRARY_MAX_ITEMS: String(MAX_ITEMS), UPLOAD_MAX_BYTES: String(1 << 20) },
    renditions: false,
  });
  apiKey = await service.apiKey('library-transactions', 'library');
  siteKey = await service.apiKey('library-transactions-site', 'site');
}, 60_000);
afterAll(() => service?.close());

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();
const tokenOf = (url: string) => url.split('/').pop() as string;
let users = 0;
const newUser = () => service.token(`library-transactions-${++users}-${Date.now()}`);
const guidsOf = (body: any): string[] => body.LibraryItems.map((item: { ItemGuid: string }) => item.ItemGuid);
/** Changes to library data only: API keys and users' tokens are made by the harness between snapshots. */
const changesSince = async (before: StoreSnapshot) =>
  storeDiff(before, await snapshotStore(service), (key) => key.startsWith('APIKEY'));

async function push(count: number): Promise<{ itemGuids: string[]; url: string }> {
  const files = Array.from({ length: count }, () => ({ bytes: png(2, 2, ++seed) }));
  const { itemGuids, productBuilderUrl } = await pushFiles(service.url, apiKey, files, { multi: true });
  return { itemGuids, url: productBuilderUrl };
}

/** A large file through the presigned POST, then its completion: the answer and the bytes. */
async function uploadLargeFile(): Promise<{
  itemGuid: string;
  complete: () => Promise<any>;
  first: any;
  bytes: Buffer;
}> {
  const ticket = (await service.request('POST', '/library/upload', { apiKey })).body;
  const bytes = pngOfSize(200 * 1024);
  const form = new FormData();
  for (const [name, value] of Object.entries(ticket.Upload.Fields as Record<string, string>)) form.append(name, value);
  form.append('file', new Blob([bytes]), 'large.png');
  expect((await fetch(ticket.Upload.Url, { method: 'POST', body: form })).status).toBeLessThan(300);
  const complete = () => service.request('POST', `/library/upload/${ticket.ItemGuid}/complete`, { apiKey });
  const first = await complete();
  expect(first.status, first.text).toBe(200);
  return { itemGuid: ticket.ItemGuid, complete, first, bytes };
}

const claim = (token: string, url: string) =>
  service.request('POST', '/library/claim', { token, json: { ProductBuilderUrl: url } });
const list = (token: string) => service.request('GET', '/library?limit=200', { token });

describe('the commit of a push', () => {
  it(`creates the items, the builder link, the anonymous user and the LibraryItemsAdded outbox record together, up to ${MAX_ITEMS} images`, async () => {
    const before = await snapshotStore(service);
    const { itemGuids } = await push(MAX_ITEMS);
    const changes = await changesSince(before);
    const kinds = changes.map((change) => /^item added: ([A-Z]+)#/.exec(change)?.[1]).filter(Boolean);
    expect(kinds.filter((kind) => kind === 'LIBITEM')).toHaveLength(MAX_ITEMS);
    expect(kinds.filter((kind) => kind !== 'LIBITEM').sort()).toEqual(['ANONUSER', 'BUILDER', 'INGEST', 'OUTBOX']);

    const after = await snapshotStore(service);
    const outbox = [...after.items].find(
      ([key]) => key.startsWith('OUTBOX#LibraryItemsAdded-') && !before.items.has(key),
    )!;
    const { event } = unmarshall(outbox[1] as Record<string, AttributeValue>);
    expect(event).toMatchObject({ type: 'LibraryItemsAdded', detail: { ItemGuids: itemGuids } });
    expect(outbox[0]).toBe(`OUTBOX#LibraryItemsAdded-${event.detail.AnonymousUserId}|OUTBOX`);
  });
});

describe('a replayed large-file completion', () => {
  it('after the item was claimed: answers the same, writes nothing, and the claim stands', async () => {
    const { itemGuid, complete, first, bytes } = await uploadLargeFile();
    const url = first.body.ProductBuilderUrl as string;
    const [owner, second] = [await newUser(), await newUser()];
    expect((await claim(owner, url)).status).toBe(200);

    const before = await snapshotStore(service);
    const replay = await complete();
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(await changesSince(before)).toEqual([]);

    const refused = await claim(second, url);
    expect(refused.status).toBe(409);
    expect(refused.body.Error.Code).toBe('AlreadyClaimed');
    expect(guidsOf((await list(second)).body)).not.toContain(itemGuid);
    expect((await service.request('DELETE', `/library/${itemGuid}`, { token: second })).status).toBe(404);

    const listed = (await list(owner)).body.LibraryItems as { ItemGuid: string; DownloadUrl: string }[];
    expect(listed.map((item) => item.ItemGuid)).toEqual([itemGuid]);
    const download = await fetch(listed[0]!.DownloadUrl);
    expect(download.status).toBe(200);
    expect(md5(new Uint8Array(await download.arrayBuffer()))).toBe(md5(bytes));
  });

  it('after the item was erased: 404, and the item stays gone', async () => {
    const { itemGuid, complete, first } = await uploadLargeFile();
    const owner = await newUser();
    expect((await claim(owner, first.body.ProductBuilderUrl)).status).toBe(200);
    expect((await service.request('DELETE', `/library/${itemGuid}`, { token: owner })).status).toBe(200);

    const before = await snapshotStore(service);
    const replay = await complete();
    expect(replay.status).toBe(404);
    expect(replay.body.Error.Code).toBe('UploadNotFound');
    expect(await changesSince(before)).toEqual([]);
    expect((await service.request('GET', `/library/${itemGuid}`, { apiKey })).status).toBe(404);
    const builder = await service.request('GET', `/builder/${tokenOf(first.body.ProductBuilderUrl)}`, {
      apiKey: siteKey,
    });
    expect(builder.body.Builder.Items).toEqual([]);
    expect(guidsOf((await list(owner)).body)).toEqual([]);
  });
});

describe('a builder link of the largest size (99 items)', () => {
  let itemGuids: string[];
  beforeAll(async () => {
    itemGuids = [...(await push(MAX_ITEMS)).itemGuids, ...(await push(2)).itemGuids];
  }, 60_000);
  const mint = (guids: string[]) => service.request('POST', '/library/builder', { apiKey, json: { Guids: guids } });

  it('is minted in one transaction over 99 items, and refused over 100', async () => {
    expect((await mint(itemGuids)).status).toBe(200);
    const over = await mint([...itemGuids, (await push(1)).itemGuids[0]!]);
    expect(over.status).toBe(400);
  });

  it('is claimed all at once for every reader: the listing shows none or all, another user is refused only once all show', async () => {
    const url = (await mint(itemGuids)).body.ProductBuilderUrl as string;
    const [owner, other] = [await newUser(), await newUser()];
    const claimed = claim(owner, url);
    let settled = false;
    void claimed.then(() => (settled = true));
    // A reader and a rival claimant race the claim until it answers, one request of each at a time: every
    // listing shows none or all, and every refusal comes once all show. Not a new rival per listing: each
    // rival claim settles the owner's claim (two transactions over 99 items), and rivals started faster
    // than they finish queued on DynamoDB Local's table lock in front of the very claim they waited for.
    const seen = new Set<number>();
    const reads = (async () => {
      while (!settled) seen.add(guidsOf((await list(owner)).body).length);
    })();
    const rivals = (async () => {
      while (!settled) {
        const answer = await claim(other, url);
        // Refused only once the claim it lost to is in the owner's library, whole.
        if (answer.status === 409) expect(guidsOf((await list(owner)).body)).toHaveLength(99);
        else expect(answer.status).toBe(200);
      }
    })();
    const answer = await claimed;
    await Promise.all([reads, rivals]);
    seen.add(guidsOf((await list(owner)).body).length);
    expect(
      [...seen].every((count) => count === 0 || count === 99),
      [...seen].join(),
    ).toBe(true);
    // Whoever of the two won the link has all 99 items; the other none.
    const winner = answer.status === 200 ? owner : other;
    const loser = winner === owner ? other : owner;
    expect(guidsOf((await list(winner)).body).sort()).toEqual([...itemGuids].sort());
    expect(guidsOf((await list(loser)).body)).toEqual([]);
    const builder = await service.request('GET', `/builder/${tokenOf(url)}`, { apiKey: siteKey });
    expect(builder.body.Builder.Items.map((item: { ItemGuid: string }) => item.ItemGuid)).toEqual(itemGuids);
  });
});
