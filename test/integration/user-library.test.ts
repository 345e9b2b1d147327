/**
 * The signed-in user's library over HTTP against the local stack: POST /library/claim, GET /library
 * (pagination, cursors) and DELETE /library/{itemGuid} (erasure: records and object), including a claim
 * that dies half way (invisible until a repeat or another user's claim finishes it) and an erasure whose
 * object delete fails (finished by the sweeper).
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { png } from '../support/images.ts';
import { libraryObjectKeyOf, listObjectKeys } from '../support/store-snapshot.ts';
import { injectFault, type FaultHandle } from '../support/faults.ts';
import { pushFiles } from '../support/library-push.ts';

let service: TestService;
let apiKey: string;
let siteKey: string;
let alice: string;
let bob: string;
const installed: FaultHandle[] = [];

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();
const tokenOf = (url: string) => url.split('/').pop() as string;
let seed = 0;

/** Pushes `count` distinct PNGs in one request (multi push when more than one); answers the guids and the builder URL. */
async function push(count: number): Promise<{ itemGuids: string[]; url: string; images: Buffer[] }> {
  const images = Array.from({ length: count }, () => png(3, 2, ++seed));
  const { itemGuids, productBuilderUrl } = await pushFiles(
    service.url,
    apiKey,
    images.map((bytes) => ({ bytes })),
  );
  return { itemGuids, url: productBuilderUrl, images };
}

const claim = (token: string, url: string) =>
  service.request('POST', '/library/claim', { token, json: { ProductBuilderUrl: url } });
const list = (token: string, query = '') => service.request('GET', `/library${query}`, { token });
const remove = (token: string, itemGuid: string) => service.request('DELETE', `/library/${itemGuid}`, { token });
const guidsOf = (body: any): string[] => body.LibraryItems.map((item: { ItemGuid: string }) => item.ItemGuid);
/** A presigned URL without its signing time (`X-Amz-Date`) and the signature that covers it. */
const withoutSigningTime = (url: string) => {
  const parsed = new URL(url);
  parsed.searchParams.delete('X-Amz-Date');
  parsed.searchParams.delete('X-Amz-Signature');
  return parsed.href;
};
/** The answer without what changes from one signing to the next (a repeat may land in another second). */
const unsigned = (body: any) =>
  JSON.parse(
    JSON.stringify(body.LibraryItems, (key, value) =>
      key === 'DownloadExpiresDateUtc' ? undefined : key.endsWith('Url') ? withoutSigningTime(value) : value,
    ),
  );

beforeAll(async () => {
  service = await startTestService();
  apiKey = await service.apiKey('user-library', 'library');
  siteKey = await service.apiKey('user-library-site', 'site');
}, 60_000);
afterEach(() => {
  for (const handle of installed.splice(0)) handle.remove();
});
afterAll(() => service?.close());

let users = 0;
const newUser = async () => service.token(`user-library-${++users}-${Date.now()}`);

describe('POST /library/claim', () => {
  beforeAll(async () => {
    alice = await newUser();
    bob = await newUser();
  });

  it("moves the link's items into the user's library with the read shape, and answers the same when repeated", async () => {
    const { itemGuids, url, images } = await push(3);
    // Renditions decided, so that the repeated claim finds the same state as the first.
    await service.drainEvents();
    const first = await claim(alice, url);
    expect(first.status, first.text).toBe(200);
    expect(guidsOf(first.body)).toEqual(itemGuids);
    const [item] = first.body.LibraryItems;
    expect(item).toMatchObject({
      FileMimeType: 'image/png',
      FileSize: images[0]!.length,
      FileMd5: md5(images[0]!),
      Width: 3,
      Height: 2,
      Orientation: 1,
    });
    const downloaded = Buffer.from(await (await fetch(item.DownloadUrl)).arrayBuffer());
    expect(md5(downloaded)).toBe(md5(images[0]!));

    const again = await claim(alice, url);
    expect(again.status).toBe(200);
    expect(unsigned(again.body)).toEqual(unsigned(first.body));
    expect(guidsOf((await list(alice)).body)).toEqual(expect.arrayContaining(itemGuids));

    const builder = await service.request('GET', `/builder/${tokenOf(url)}`, { apiKey: siteKey });
    expect(builder.body.Builder.Items.map((entry: { ItemGuid: string }) => entry.ItemGuid)).toEqual(itemGuids);
  });

  it('answers 409 AlreadyClaimed to a second user, and leaves the items with the first', async () => {
    const { itemGuids, url } = await push(1);
    expect((await claim(alice, url)).status).toBe(200);
    const second = await claim(bob, url);
    expect(second.status).toBe(409);
    expect(second.body.Error.Code).toBe('AlreadyClaimed');
    expect(guidsOf((await list(bob)).body)).not.toContain(itemGuids[0]);
    expect(guidsOf((await list(alice)).body)).toContain(itemGuids[0]);
  });

  it('lets exactly one of two users claiming the same link at once have it; the same user twice at once gets the same items', async () => {
    const { itemGuids, url } = await push(3);
    const [first, second] = [await newUser(), await newUser()];
    const answers = await Promise.all([claim(first, url), claim(second, url)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = answers[0]!.status === 200 ? first : second;
    expect(guidsOf((await list(winner)).body).sort()).toEqual([...itemGuids].sort());

    const again = await push(2);
    const same = await Promise.all([claim(first, again.url), claim(first, again.url)]);
    expect(same.map((answer) => answer.status)).toEqual([200, 200]);
    expect(same.map((answer) => guidsOf(answer.body))).toEqual([again.itemGuids, again.itemGuids]);
  });

  it('leaves out an item another user holds when a link minted over several uploads is claimed', async () => {
    const [mine, theirs] = [await push(1), await push(1)];
    expect((await claim(bob, theirs.url)).status).toBe(200);
    const minted = await service.request('POST', '/library/builder', {
      apiKey,
      json: { Guids: [...mine.itemGuids, ...theirs.itemGuids] },
    });
    const claimed = await claim(alice, minted.body.ProductBuilderUrl);
    expect(claimed.status).toBe(200);
    expect(guidsOf(claimed.body)).toEqual(mine.itemGuids);
    expect(guidsOf((await list(bob)).body)).toContain(theirs.itemGuids[0]);
  });

  it('answers 404 for an unknown token and 400 for a URL that is not a builder URL of this service', async () => {
    const { url } = await push(1);
    const unknown = await claim(alice, url.replace(/[0-9a-f]{32}$/, '0'.repeat(32)));
    expect(unknown.status).toBe(404);
    expect(unknown.body.Error.Code).toBe('BuilderNotFound');
    const base = url.slice(0, url.lastIndexOf('/builder/'));
    for (const bad of [
      '',
      'not a url',
      `https://elsewhere.example/builder/${tokenOf(url)}`,
      `${base}/checkout/${tokenOf(url)}`,
      `${base}/builder/${tokenOf(url)}x`,
      `${base}/builder/../${tokenOf(url)}`,
      `${url}?a=1`,
    ]) {
      const response = await claim(alice, bad);
      expect(response.status, bad).toBe(400);
    }
  });

  it('shows nothing of a claim that died after its holds; a repeat, or another user refused the link, finishes it', async () => {
    const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
    const dieAfterHolds = () =>
      installed.push(
        injectFault(dynamoDbClient, { command: 'TransactWriteItemsCommand', kind: 'dynamo-throughput', skip: 1 }),
      );
    const [user, other] = [await newUser(), await newUser()];
    for (const finisher of ['repeat', 'other user'] as const) {
      const { itemGuids, url } = await push(2);
      dieAfterHolds();
      expect((await claim(user, url)).status).toBeGreaterThanOrEqual(500);
      installed.splice(0).forEach((handle) => handle.remove());
      // The link is decided and the items held, but the library shows none of them, and none is deletable.
      expect(guidsOf((await list(user)).body)).not.toContain(itemGuids[0]);
      expect((await remove(user, itemGuids[0]!)).status).toBe(404);
      if (finisher === 'other user') expect((await claim(other, url)).status).toBe(409);
      else expect(guidsOf((await claim(user, url)).body)).toEqual(itemGuids);
      expect(guidsOf((await list(user)).body)).toEqual(expect.arrayContaining(itemGuids));
      expect(guidsOf((await claim(user, url)).body)).toEqual(itemGuids);
    }
  });
});

describe('POST /library/claim over items of an unfinished claim', () => {
  it("finishes the other claim before leaving its items out, so their holder's library shows them", async () => {
    const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
    const [holder, claimant] = [await newUser(), await newUser()];
    const [held, mine] = [await push(2), await push(1)];
    installed.push(
      injectFault(dynamoDbClient, { command: 'TransactWriteItemsCommand', kind: 'dynamo-throughput', skip: 1 }),
    );
    expect((await claim(holder, held.url)).status).toBeGreaterThanOrEqual(500);
    installed.splice(0).forEach((handle) => handle.remove());
    expect(guidsOf((await list(holder)).body)).toEqual([]);

    const minted = await service.request('POST', '/library/builder', {
      apiKey,
      json: { Guids: [...held.itemGuids, ...mine.itemGuids] },
    });
    const claimed = await claim(claimant, minted.body.ProductBuilderUrl);
    expect(claimed.status).toBe(200);
    expect(guidsOf(claimed.body)).toEqual(mine.itemGuids);
    expect(guidsOf((await list(holder)).body).sort()).toEqual([...held.itemGuids].sort());
  });
});

describe('GET /library', () => {
  let carol: string;
  const all: string[] = [];

  beforeAll(async () => {
    carol = await newUser();
    // 120 items: 12 multi pushes of 10, each link claimed, the latest upload first in the listing.
    for (let upload = 0; upload < 12; upload++) {
      const { itemGuids, url } = await push(10);
      expect((await claim(carol, url)).status).toBe(200);
      all.push(...itemGuids);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }, 120_000);

  it('pages 120 items 50 at a time, newest first, without duplicates or gaps', async () => {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const response = await list(carol, `?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(response.status, response.text).toBe(200);
      pages.push(guidsOf(response.body));
      cursor = response.body.NextCursor;
    } while (cursor);
    expect(pages.map((page) => page.length)).toEqual([50, 50, 20]);
    const seen = pages.flat();
    expect(new Set(seen).size).toBe(120);
    expect([...seen].sort()).toEqual([...all].sort());
    // Newest upload first: each upload's 10 items together, uploads in reverse order.
    const uploadOf = (guid: string) => Math.floor(all.indexOf(guid) / 10);
    expect(seen.map(uploadOf)).toEqual(
      [11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0].flatMap((upload) => Array<number>(10).fill(upload)),
    );
  });

  it('answers 50 by default, and NextCursor only when more items follow', async () => {
    const first = await list(carol);
    expect(first.body.LibraryItems).toHaveLength(50);
    expect(first.body.NextCursor).toEqual(expect.any(String));
    const exact = await list(carol, '?limit=200');
    expect(exact.body.LibraryItems).toHaveLength(120);
    expect('NextCursor' in exact.body).toBe(false);
    const empty = await list(await newUser());
    expect(empty.body).toEqual({ LibraryItems: [] });
  });

  it("refuses a bad limit, a tampered cursor and another user's cursor with 400", async () => {
    for (const limit of ['0', '201', 'x', '-1']) expect((await list(carol, `?limit=${limit}`)).status, limit).toBe(400);
    const { NextCursor: cursor } = (await list(carol, '?limit=10')).body;
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const tampered = Buffer.from(JSON.stringify([decoded[0], 'REF#0'])).toString('base64url');
    for (const bad of [tampered, `${cursor}x`, 'not-a-cursor!']) {
      const response = await list(carol, `?cursor=${encodeURIComponent(bad)}`);
      expect(response.status, bad).toBe(400);
      expect(response.body.Error.Code).toBe('InvalidCursor');
    }
    const foreign = await list(await newUser(), `?cursor=${encodeURIComponent(cursor)}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.Error.Code).toBe('InvalidCursor');
  });
});

describe('DELETE /library/{itemGuid}', () => {
  it('erases the object and the records: gone from the bucket, GET /library, GET /library/{guid} and the builder URL', async () => {
    const user = await newUser();
    const { itemGuids, url } = await push(2);
    expect((await claim(user, url)).status).toBe(200);
    const [gone, kept] = itemGuids as [string, string];
    const objectKey = await libraryObjectKeyOf(service.storage, gone);
    expect(objectKey).toBeDefined();
    await service.drainEvents();
    const renditionKeys = [`${objectKey}.thumbnail.webp`, `${objectKey}.preview.webp`];
    expect([...(await listObjectKeys(service.storage)).keys()]).toEqual(expect.arrayContaining(renditionKeys));

    const deleted = await remove(user, gone);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ ItemGuid: gone, Deleted: true });
    expect(await libraryObjectKeyOf(service.storage, gone)).toBeUndefined();
    // Its renditions are erased with it.
    const left = [...(await listObjectKeys(service.storage)).keys()];
    expect(left.filter((key) => key.startsWith(objectKey!))).toEqual([]);
    expect(await libraryObjectKeyOf(service.storage, kept)).toBeDefined();
    expect(guidsOf((await list(user)).body)).toEqual([kept]);
    expect((await service.request('GET', `/library/${gone}`, { apiKey })).status).toBe(404);
    const builder = await service.request('GET', `/builder/${tokenOf(url)}`, { apiKey: siteKey });
    expect(builder.body.Builder.Items.map((item: { ItemGuid: string }) => item.ItemGuid)).toEqual([kept]);
    // A repeated claim does not bring it back.
    expect(guidsOf((await claim(user, url)).body)).toEqual([kept]);

    const again = await remove(user, gone);
    expect(again.status).toBe(404);
    expect(again.body.Error.Code).toBe('LibraryItemNotFound');
  });

  it("answers 404 for another user's item and for an unclaimed one, and keeps both", async () => {
    const owner = await newUser();
    const owned = await push(1);
    expect((await claim(owner, owned.url)).status).toBe(200);
    const unclaimed = await push(1);
    const stranger = await newUser();
    for (const itemGuid of [owned.itemGuids[0]!, unclaimed.itemGuids[0]!]) {
      const response = await remove(stranger, itemGuid);
      expect(response.status).toBe(404);
      expect(response.body.Error.Code).toBe('LibraryItemNotFound');
      expect(await libraryObjectKeyOf(service.storage, itemGuid)).toBeDefined();
      expect((await service.request('GET', `/library/${itemGuid}`, { apiKey })).status).toBe(200);
    }
    expect(guidsOf((await list(owner)).body)).toEqual(owned.itemGuids);
  });

  it('erases the records at once even when the object delete fails; the erasure intent has the sweeper delete the object', async () => {
    const user = await newUser();
    const { itemGuids, url } = await push(1);
    const itemGuid = itemGuids[0]!;
    expect((await claim(user, url)).status).toBe(200);
    const { s3 } = await import('../../functions/shared/clients/s3.ts');
    installed.push(injectFault(s3, { command: 'DeleteObjectCommand', kind: 's3-internal' }));
    expect((await remove(user, itemGuid)).status).toBeGreaterThanOrEqual(500);
    installed.splice(0).forEach((handle) => handle.remove());
    // The records went in one transaction: nothing shows the item, and a repeated DELETE is 404.
    expect((await service.request('GET', `/library/${itemGuid}`, { apiKey })).status).toBe(404);
    expect(guidsOf((await list(user)).body)).toEqual([]);
    expect((await remove(user, itemGuid)).status).toBe(404);
    expect(await libraryObjectKeyOf(service.storage, itemGuid)).toBeDefined();

    // The intent expires minutes later; the TTL deletion hands it to the sweeper.
    expect(await service.expireTtl(Date.now() + 10 * 60_000)).toMatchObject({ retrying: 0 });
    expect(await libraryObjectKeyOf(service.storage, itemGuid)).toBeUndefined();
  });
});
