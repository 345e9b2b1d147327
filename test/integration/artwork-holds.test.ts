/**
 * Erasure waits for the print, over HTTP against the local stack: an item named by a checkout's artwork is
 * held until the checkout expires unpaid, its order is Cancelled, or ARTWORK_HOLD_DAYS after it is Completed.
 * DELETE /library/{itemGuid} of a held item answers 202 and hides it from the user at once while the lab still
 * downloads it; when the last hold ends (the local TTL stand-in, `expireTtl`, at a clock that far ahead) the
 * original and its records go by themselves. An item nothing holds is erased at once, as before. The race of
 * an erasure and the checkout naming its item, 50 times: erased first and the checkout is 409 naming it, or
 * scheduled and the checkout is payable; never a payable checkout whose artwork is gone.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutIdOf, itemRecordsOf, startArtworkParties, type ArtworkParties } from '../support/artwork.ts';
import { libraryObjectKeyOf, snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import { newGuid } from '../../functions/shared/ids.ts';

const DAY = 24 * 60 * 60 * 1000;

let parties: ArtworkParties;
let service: ArtworkParties['service'];

beforeAll(async () => {
  parties = await startArtworkParties('holds');
  service = parties.service;
}, 60_000);
afterAll(() => service?.close());

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();
/** `count` new PNGs in the customer's library: their guids. */
const customerPhotos = async (count: number) => (await parties.photos(count, { claim: true })).itemGuids;
const projectWith = (itemGuids: string[]) => parties.projectWith(itemGuids);
const basketWith = (projects: string[]) => parties.basketWith(projects);
const checkOut = (basketGuid: string) => parties.checkOut(basketGuid);
const paidOrder = (projects: string[]) => parties.paidOrder(projects);

const erase = (itemGuid: string) => service.request('DELETE', `/library/${itemGuid}`, { token: parties.customer });
const setStatus = async (orderGuid: string, ...statuses: string[]) => {
  for (const Status of statuses) {
    const changed = await service.request('PUT', `/order/${orderGuid}/status`, {
      apiKey: parties.fulfilmentKey,
      json: { Status },
    });
    expect(changed.status, changed.text).toBe(200);
  }
};
const listed = async () =>
  ((await service.request('GET', '/library?limit=200', { token: parties.customer })).body.LibraryItems as any[]).map(
    (item) => item.ItemGuid as string,
  );
/** Whether the item's original is kept: in the library, or held for the lab. */
const stored = async (itemGuid: string) =>
  (await libraryObjectKeyOf(service.storage, itemGuid, { held: true })) !== undefined;
const recordsOf = (itemGuid: string) => itemRecordsOf(service, itemGuid);

/** The TTL stand-in at `at`, twice: the ended hold's release, then the released intents' expiry. */
async function holdsEndBy(at: number): Promise<void> {
  await service.expireTtl(at);
  await service.expireTtl(Math.max(at, Date.now() + 1000));
}

describe('erasure of an item no checkout names', () => {
  it('erases at once, as before: 200 Deleted, records and object gone', async () => {
    const [item] = (await customerPhotos(1)) as [string];
    const erased = await erase(item);
    expect(erased.status, erased.text).toBe(200);
    expect(erased.body).toEqual({ ItemGuid: item, Deleted: true });
    expect(await stored(item)).toBe(false);
    expect((await erase(item)).status).toBe(404);
  });
});

describe('refusals', () => {
  it("another user's erasure of a held item is 404, and changes nothing", async () => {
    const [held] = (await customerPhotos(1)) as [string];
    await paidOrder([await projectWith([held])]);
    const stranger = await service.token(`stranger-${Date.now()}`);
    const before = await snapshotStore(service);
    const refused = await service.request('DELETE', `/library/${held}`, { token: stranger });
    expect(refused.status).toBe(404);
    expect(refused.body.Error).toEqual({ Code: 'LibraryItemNotFound', Message: `No library item ${held}.` });
    expect(storeDiff(before, await snapshotStore(service))).toEqual([]);
  });
});

describe('erasure of a held item', () => {
  it('is scheduled: hidden from the user at once, still read by the lab, erased ARTWORK_HOLD_DAYS after completion', async () => {
    const [held, other] = (await customerPhotos(2)) as [string, string];
    const orderGuid = await paidOrder([await projectWith([held, other])]);
    const scheduled = await erase(held);
    expect(scheduled.status, scheduled.text).toBe(202);
    expect(scheduled.body).toEqual({
      ItemGuid: held,
      ErasureScheduledDateUtc: expect.stringMatching(/^\/Date\(\d+\)\/$/),
    });
    // Gone for the user: the listing, the read, a second erasure, a new project naming it.
    expect(await listed()).not.toContain(held);
    expect((await service.request('GET', `/library/${held}`, { apiKey: parties.libraryKey })).status).toBe(404);
    expect((await erase(held)).status).toBe(404);
    const refused = await service.request('PUT', `/project/${newGuid()}`, {
      apiKey: parties.catalogKey,
      json: { UnitPrice: 1, Version: 1, ItemGuids: [held] },
    });
    expect(refused.status).toBe(422);
    // The lab still prints it.
    const artwork = await service.request('GET', `/order/${orderGuid}/artwork`, { apiKey: parties.fulfilmentKey });
    const item = artwork.body.Lines[0].Items.find((one: any) => one.ItemGuid === held);
    const bytes = new Uint8Array(await (await fetch(item.DownloadUrl)).arrayBuffer());
    expect(md5(bytes)).toBe(item.FileMd5);
    // Completed: held 30 days more (ARTWORK_HOLD_DAYS), then erased without anyone asking.
    await setStatus(orderGuid, 'Processing', 'Shipped', 'Completed');
    await holdsEndBy(Date.now() + 29 * DAY);
    expect(await stored(held)).toBe(true);
    await holdsEndBy(Date.now() + 31 * DAY);
    expect(await stored(held)).toBe(false);
    expect(await recordsOf(held)).toEqual([]);
    // The other item was never erased: its hold ending changes nothing for it.
    expect(await stored(other)).toBe(true);
    expect(await listed()).toContain(other);
  });

  it('ends with a cancelled order, at once', async () => {
    const [held] = (await customerPhotos(1)) as [string];
    const orderGuid = await paidOrder([await projectWith([held])]);
    expect((await erase(held)).status).toBe(202);
    await holdsEndBy(Date.now());
    expect(await stored(held)).toBe(true);
    await setStatus(orderGuid, 'Cancelled');
    await holdsEndBy(Date.now() + 2000);
    expect(await stored(held)).toBe(false);
    expect(await recordsOf(held)).toEqual([]);
  });

  it('ends with a checkout that expires unpaid; the last of several holds decides', async () => {
    const [held] = (await customerPhotos(1)) as [string];
    const project = await projectWith([held]);
    const unpaid = await checkOut(await basketWith([project]));
    expect(unpaid.status).toBe(200);
    const orderGuid = await paidOrder([project]);
    expect((await erase(held)).status).toBe(202);
    await setStatus(orderGuid, 'Cancelled');
    await holdsEndBy(Date.now() + 2000);
    // The unpaid checkout still holds it, and can be read and paid.
    expect(await stored(held)).toBe(true);
    const open = await service.request('GET', `/checkout/${checkoutIdOf(unpaid)}`, { apiKey: parties.siteKey });
    expect(open.body.Checkout.Status).toBe('Open');
    await holdsEndBy(Date.now() + 61 * DAY);
    expect(await stored(held)).toBe(false);
  });
});

describe('an erasure racing the checkout that names its item', () => {
  it('erases first (checkout 409 naming the item) or is scheduled (checkout payable), 50 times out of 50', async () => {
    const items = await customerPhotos(50);
    const baskets: string[] = [];
    for (const item of items) baskets.push(await basketWith([await projectWith([item])]));
    const outcomes = await Promise.all(
      items.map(async (item, index) => {
        const [checkout, erasure] = await Promise.all([checkOut(baskets[index]!), erase(item)]);
        if (erasure.status === 200) {
          expect(checkout.status, checkout.text).toBe(409);
          expect(checkout.body.Error.Code).toBe('ArtworkErased');
          expect(checkout.body.Error.Message).toContain(item);
          expect(await stored(item)).toBe(false);
          return 'erased first';
        }
        expect(erasure.status, erasure.text).toBe(202);
        expect(checkout.status, checkout.text).toBe(200);
        const read = await service.request('GET', `/checkout/${checkoutIdOf(checkout)}`, { apiKey: parties.siteKey });
        expect(read.body.Checkout.Status).toBe('Open');
        expect(await stored(item)).toBe(true);
        return 'scheduled';
      }),
    );
    expect(outcomes).toHaveLength(50);
    console.log(
      'race outcomes',
      Object.groupBy(outcomes, (outcome) => outcome),
    );
  }, 300_000);
});

describe('a checkout whose artwork takes more than one transaction', () => {
  it('holds every item of 2 lines of 120 items (marks in several transactions) and is payable', async () => {
    const items = await customerPhotos(240);
    const orderGuid = await paidOrder([await projectWith(items.slice(0, 120)), await projectWith(items.slice(120))]);
    expect((await erase(items[239] as string)).status).toBe(202);
    expect((await erase(items[0] as string)).status).toBe(202);
    await setStatus(orderGuid, 'Cancelled');
    await holdsEndBy(Date.now() + 2000);
    expect(await stored(items[0] as string)).toBe(false);
    expect(await stored(items[1] as string)).toBe(true);
  }, 300_000);

  it('an erasure racing it breaks it (409 naming the item) or waits for it, never a payable checkout without artwork', async () => {
    const items = await customerPhotos(120);
    const basketGuid = await basketWith([await projectWith(items)]);
    const target = items[110] as string;
    const [checkout, erasure] = await Promise.all([checkOut(basketGuid), erase(target)]);
    if (erasure.status === 200) {
      expect(checkout.status, checkout.text).toBe(409);
      expect(checkout.body.Error.Message).toContain(target);
    } else {
      expect(erasure.status).toBe(202);
      expect(checkout.status).toBe(200);
    }
  }, 300_000);
});
