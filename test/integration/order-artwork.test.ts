/**
 * Orders keep their artwork, over HTTP against the local stack: PUT /project names a version's library items
 * (ItemGuids), GET /project answers them, refusals (too many, duplicates, unknown, a changed version) change
 * nothing; a checkout and its order keep each line's artwork, and GET /order/{guid}/artwork (fulfilment key)
 * answers presigned GETs of the originals, whose bytes hash to FileMd5, a page of whole lines at a time.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { png } from '../support/images.ts';
import { pushFiles } from '../support/library-push.ts';
import { snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import { newGuid } from '../../functions/shared/ids.ts';

let service: TestService;
let libraryKey: string;
let catalogKey: string;
let siteKey: string;
let fulfilmentKey: string;
let alice: string;
let seed = 0;

beforeAll(async () => {
  service = await startTestService();
  libraryKey = await service.apiKey('artwork-app', 'library');
  catalogKey = await service.apiKey('artwork-catalog', 'catalog');
  siteKey = await service.apiKey('artwork-site', 'site');
  fulfilmentKey = await service.apiKey('artwork-lab', 'fulfilment');
  alice = await service.token(`artwork-${Date.now()}`);
}, 60_000);
afterAll(() => service?.close());

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();

/** Pushes `count` distinct PNGs (multi pushes of at most 20); answers their guids and bytes by guid. */
async function pushImages(count: number): Promise<{ itemGuids: string[]; bytes: Map<string, Buffer> }> {
  const itemGuids: string[] = [];
  const bytes = new Map<string, Buffer>();
  for (let done = 0; done < count; done += 20) {
    const images = Array.from({ length: Math.min(20, count - done) }, () => png(3, 2, ++seed));
    const pushed = await pushFiles(
      service.url,
      libraryKey,
      images.map((image) => ({ bytes: image })),
      { multi: true },
    );
    pushed.itemGuids.forEach((guid, index) => bytes.set(guid, images[index] as Buffer));
    itemGuids.push(...pushed.itemGuids);
  }
  return { itemGuids, bytes };
}

const putProject = (guid: string, json: Record<string, unknown>) =>
  service.request('PUT', `/project/${guid}`, { apiKey: catalogKey, json: { UnitPrice: 19.5, Version: 1, ...json } });

async function projectWith(itemGuids: string[]): Promise<string> {
  const guid = newGuid();
  const saved = await putProject(guid, { ItemGuids: itemGuids });
  expect(saved.status, saved.text).toBe(200);
  return guid;
}

/** A basket of one line per project, checked out and paid: the new order's guid. */
async function orderOf(projects: string[]): Promise<string> {
  const basketGuid = (await service.request('POST', '/basket', { token: alice })).body.Guid as string;
  for (const ProjectGuid of projects) {
    const added = await service.request('POST', `/basket/${basketGuid}/line`, {
      token: alice,
      json: { ProjectGuid, Quantity: 1 },
    });
    expect(added.status, added.text).toBe(200);
  }
  const checkout = await service.request('POST', `/basket/${basketGuid}/checkout`, { token: alice });
  expect(checkout.status, checkout.text).toBe(200);
  const checkoutId = (checkout.body.CheckoutUrl as string).split('/').pop() as string;
  const completed = await service.request('POST', `/checkout/${checkoutId}/complete`, {
    apiKey: siteKey,
    json: { PaymentReference: `pay-${checkoutId.slice(0, 8)}` },
  });
  expect(completed.status, completed.text).toBe(200);
  return completed.body.Order.OrderGuid as string;
}

const readArtwork = (orderGuid: string, query = '', apiKey = fulfilmentKey) =>
  service.request('GET', `/order/${orderGuid}/artwork${query}`, { apiKey });

describe('PUT /project ItemGuids', () => {
  it('registers the items a version prints; GET answers them; a PUT without them keeps them', async () => {
    const { itemGuids } = await pushImages(3);
    const guid = newGuid();
    const saved = await putProject(guid, { ItemGuids: itemGuids });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.ItemGuids).toEqual(itemGuids);
    const read = await service.request('GET', `/project/${guid}`, { apiKey: catalogKey });
    expect(read.body).toEqual(saved.body);
    // The pricing system moves the price on without knowing of artwork: the artwork stays.
    const repriced = await putProject(guid, { UnitPrice: 21, Version: 1 });
    expect(repriced.body).toMatchObject({ UnitPrice: 21, ItemGuids: itemGuids });
    // The same version with the same items is a repeat; a new version may name others.
    expect((await putProject(guid, { ItemGuids: itemGuids })).status).toBe(200);
    expect((await putProject(guid, { Version: 2, ItemGuids: itemGuids.slice(0, 1) })).body.ItemGuids).toEqual(
      itemGuids.slice(0, 1),
    );
  });

  it('refuses bad artwork with a 4xx naming it, and changes nothing', async () => {
    const { itemGuids } = await pushImages(2);
    const guid = newGuid();
    expect((await putProject(guid, { ItemGuids: itemGuids })).status).toBe(200);
    const unknown = newGuid();
    const cases: [Record<string, unknown>, number, string, RegExp][] = [
      [{ ItemGuids: [] }, 400, 'ValidationFailed', /ItemGuids: must name at least one item/],
      [{ ItemGuids: Array.from({ length: 201 }, newGuid) }, 400, 'ValidationFailed', /at most 200 items/],
      [{ ItemGuids: [itemGuids[0], itemGuids[0]] }, 400, 'ValidationFailed', new RegExp(`twice \\(${itemGuids[0]}\\)`)],
      [{ ItemGuids: ['not-a-guid'] }, 400, 'ValidationFailed', /ItemGuids/],
      [{ Version: 2, ItemGuids: [itemGuids[0], unknown] }, 422, 'UnknownLibraryItem', new RegExp(unknown)],
      [{ ItemGuids: itemGuids.slice(0, 1) }, 409, 'ArtworkNeedsNewVersion', /new Version/],
    ];
    for (const [json, status, code, message] of cases) {
      const before = await snapshotStore(service);
      const refused = await putProject(guid, json);
      expect(refused.status, refused.text).toBe(status);
      expect(refused.body.Error.Code).toBe(code);
      expect(refused.body.Error.Message).toMatch(message);
      // A refused artwork may leave its immutable record behind (named by its digest, named by nothing).
      expect(storeDiff(before, await snapshotStore(service), (key) => key.includes('|ARTWORK#'))).toEqual([]);
    }
    expect((await putProject(guid, {})).body.ItemGuids).toEqual(itemGuids);
  });
});

describe('GET /order/{orderGuid}/artwork', () => {
  it('answers the originals of every line, whose downloads hash to FileMd5; OrderCreated points to it', async () => {
    const { itemGuids, bytes } = await pushImages(4);
    const book = await projectWith(itemGuids.slice(0, 3));
    const mug = await projectWith(itemGuids.slice(3));
    const plain = await service.project(5);
    const orderGuid = await orderOf([book, mug, plain]);
    const artwork = await readArtwork(orderGuid);
    expect(artwork.status, artwork.text).toBe(200);
    expect(artwork.body.NextCursor).toBeUndefined();
    expect(artwork.body.Lines.map((line: any) => [line.ProjectGuid, line.Items.length])).toEqual([
      [book, 3],
      [mug, 1],
      [plain, 0],
    ]);
    const items = artwork.body.Lines.flatMap((line: any) => line.Items);
    expect(items.map((item: any) => item.ItemGuid)).toEqual(itemGuids);
    for (const item of items) {
      expect(item).toMatchObject({ FileMimeType: 'image/png', Width: 3, Height: 2 });
      expect(item.DownloadUrlExpiresDateUtc).toMatch(/^\/Date\(\d+\)\/$/);
      const download = await fetch(item.DownloadUrl);
      expect(download.status).toBe(200);
      const downloaded = new Uint8Array(await download.arrayBuffer());
      expect(md5(downloaded)).toBe(item.FileMd5);
      expect(Buffer.from(downloaded).equals(bytes.get(item.ItemGuid) as Buffer)).toBe(true);
    }
    await service.drainStream();
    const events = readFileSync(join(service.dataDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const created = events.find(
      (event) => event.detail.OrderGuid === orderGuid && event['detail-type'] === 'OrderCreated',
    );
    expect(created.detail.ArtworkPath).toBe(`/order/${orderGuid}/artwork`);
    expect(created.detail.Lines.map((line: any) => line.ArtworkItemCount)).toEqual([3, 1, 0]);
    expect(JSON.stringify(created)).not.toMatch(/X-Amz-Signature/);
  });

  it('keeps the artwork a line was paid with, whatever the project registers later', async () => {
    const { itemGuids } = await pushImages(2);
    const project = await projectWith(itemGuids.slice(0, 1));
    const orderGuid = await orderOf([project]);
    expect((await putProject(project, { Version: 2, ItemGuids: itemGuids.slice(1) })).status).toBe(200);
    const artwork = await readArtwork(orderGuid);
    expect(artwork.body.Lines[0]).toMatchObject({ ProjectVersion: 1, Items: [{ ItemGuid: itemGuids[0] }] });
  });

  it('pages whole lines of at most 1000 items: 6 lines of 200 are 2 pages', async () => {
    const { itemGuids } = await pushImages(200);
    const projects = [];
    for (let index = 0; index < 6; index++) projects.push(await projectWith(itemGuids));
    const orderGuid = await orderOf(projects);
    const first = await readArtwork(orderGuid);
    expect(first.status, first.text).toBe(200);
    expect(first.body.Lines.map((line: any) => line.Items.length)).toEqual([200, 200, 200, 200, 200]);
    expect(first.body.NextCursor).toBeDefined();
    const second = await readArtwork(orderGuid, `?cursor=${first.body.NextCursor}`);
    expect(second.body.Lines.map((line: any) => [line.Id, line.Items.length])).toEqual([[6, 200]]);
    expect(second.body.NextCursor).toBeUndefined();
    expect((await readArtwork(orderGuid, '?cursor=99')).body.Error.Code).toBe('InvalidCursor');
  }, 120_000);

  it('is 404 for an unknown order, and takes the fulfilment key only (a bearer token or a site key is 403)', async () => {
    const unknown = await readArtwork(newGuid());
    expect(unknown.status).toBe(404);
    expect(unknown.body.Error.Code).toBe('OrderNotFound');
    expect((await readArtwork(newGuid(), '', siteKey)).status).toBe(403);
    const asUser = await service.request('GET', `/order/${newGuid()}/artwork`, { token: alice });
    expect(asUser.status).toBe(403);
  });
});
