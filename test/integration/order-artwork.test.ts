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
import { startArtworkParties, type ArtworkParties } from '../support/artwork.ts';
import { snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import { newGuid } from '../../functions/shared/ids.ts';

let parties: ArtworkParties;

beforeAll(async () => {
  parties = await startArtworkParties('artwork');
}, 60_000);
afterAll(() => parties?.service.close());

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();
const pushImages = (count: number) => parties.photos(count);
const putProject = (guid: string, json: Record<string, unknown>) => parties.putProject(guid, json);
const projectWith = (itemGuids: string[]) => parties.projectWith(itemGuids);
const orderOf = (projects: string[]) => parties.paidOrder(projects);

const readArtwork = (orderGuid: string, query = '', apiKey = parties.fulfilmentKey) =>
  parties.service.request('GET', `/order/${orderGuid}/artwork${query}`, { apiKey });

describe('PUT /project ItemGuids', () => {
  it('registers the items a version prints; GET answers them; a PUT without them keeps them', async () => {
    const { itemGuids } = await pushImages(3);
    const guid = newGuid();
    const saved = await putProject(guid, { ItemGuids: itemGuids });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.ItemGuids).toEqual(itemGuids);
    const read = await parties.service.request('GET', `/project/${guid}`, { apiKey: parties.catalogKey });
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
      const before = await snapshotStore(parties.service);
      const refused = await putProject(guid, json);
      expect(refused.status, refused.text).toBe(status);
      expect(refused.body.Error.Code).toBe(code);
      expect(refused.body.Error.Message).toMatch(message);
      // A refused artwork may leave its immutable record behind (named by its digest, named by nothing).
      expect(storeDiff(before, await snapshotStore(parties.service), (key) => key.includes('|ARTWORK#'))).toEqual([]);
    }
    expect((await putProject(guid, {})).body.ItemGuids).toEqual(itemGuids);
  });
});

describe('GET /order/{orderGuid}/artwork', () => {
  it('answers the originals of every line, whose downloads hash to FileMd5; OrderCreated points to it', async () => {
    const { itemGuids, bytes } = await pushImages(4);
    const book = await projectWith(itemGuids.slice(0, 3));
    const mug = await projectWith(itemGuids.slice(3));
    const plain = await parties.service.project(5);
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
    await parties.service.drainStream();
    const events = readFileSync(join(parties.service.dataDir, 'events.jsonl'), 'utf8')
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
    expect((await readArtwork(newGuid(), '', parties.siteKey)).status).toBe(403);
    const asUser = await parties.service.request('GET', `/order/${newGuid()}/artwork`, { token: parties.customer });
    expect(asUser.status).toBe(403);
  });
});
