/**
 * A held erasure over HTTP against the local stack: the 202 takes the customer's access at once (the URLs
 * the customer was given before answer 403/404, the renditions are gone) while the lab still downloads the
 * original through its order; when the last hold ends nothing of the item is left. An unpaid checkout holds
 * for CHECKOUT_HOLD_HOURS (24 here) only, not until it expires: the erasure goes ahead at the hold's end
 * (the local TTL stand-in, `expireTtl`, at a clock that far ahead) and closes the checkout, whose completion
 * is then 409 ArtworkErased. A held erasure that left the original at its library key, with no held copy,
 * is read there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutIdOf, itemRecordsOf, startArtworkParties, type ArtworkParties } from '../support/artwork.ts';
import { listObjectKeys } from '../support/store-snapshot.ts';

const HOUR = 60 * 60 * 1000;

let parties: ArtworkParties;
let service: ArtworkParties['service'];

beforeAll(async () => {
  parties = await startArtworkParties('held-erasure');
  service = parties.service;
}, 60_000);
afterAll(() => service?.close());

const erase = (itemGuid: string) => service.request('DELETE', `/library/${itemGuid}`, { token: parties.customer });
/** Every object the bucket keeps of the item: its original (wherever it is kept) and its renditions. */
const objectsOf = async (itemGuid: string) =>
  [...(await listObjectKeys(service.storage)).keys()].filter((key) => key.includes(itemGuid));
/** The TTL stand-in at `at`, twice: the ended hold's release, then the released intent's expiry. */
async function holdsEndBy(at: number): Promise<void> {
  await service.expireTtl(at);
  await service.expireTtl(Math.max(at, Date.now() + 1000));
}

describe('a held erasure', { timeout: 90_000 }, () => {
  it("takes the customer's access at once; the lab still downloads the original; the hold's end leaves nothing", async () => {
    const { itemGuids, bytes } = await parties.photos(1, { claim: true });
    const held = itemGuids[0] as string;
    await service.drainEvents();
    const library = await service.request('GET', '/library?limit=200', { token: parties.customer });
    const item = (library.body.LibraryItems as any[]).find((one) => one.ItemGuid === held);
    expect(item.Renditions.Status).toBe('Ready');
    const customerUrls = [item.DownloadUrl, item.Renditions.Thumbnail.Url, item.Renditions.Preview.Url] as string[];
    for (const url of customerUrls) expect((await fetch(url)).status).toBe(200);
    const orderGuid = await parties.paidOrder([await parties.projectWith([held])]);

    const scheduled = await erase(held);
    expect(scheduled.status, scheduled.text).toBe(202);
    // The URLs the customer holds stop working with the answer, and only the original is kept.
    for (const url of customerUrls) expect([403, 404]).toContain((await fetch(url)).status);
    const kept = await objectsOf(held);
    expect(kept).toHaveLength(1);
    expect(kept[0]).not.toMatch(/^library\//);
    // The lab reads it through its order, byte for byte.
    const artwork = await service.request('GET', `/order/${orderGuid}/artwork`, { apiKey: parties.fulfilmentKey });
    expect(artwork.status, artwork.text).toBe(200);
    const download = await fetch(artwork.body.Lines[0].Items[0].DownloadUrl);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes.get(held) as Buffer)).toBe(true);

    const cancelled = await service.request('PUT', `/order/${orderGuid}/status`, {
      apiKey: parties.fulfilmentKey,
      json: { Status: 'Cancelled' },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    await holdsEndBy(Date.now() + 2000);
    expect(await objectsOf(held)).toEqual([]);
    expect(await itemRecordsOf(service, held)).toEqual([]);
  });

  it('that left the original at its library key (no held copy) is read there by the artwork read and the DownloadLink', async () => {
    const { itemGuids, bytes } = await parties.photos(1, { claim: true });
    const held = itemGuids[0] as string;
    const orderGuid = await parties.paidOrder([await parties.projectWith([held])]);
    expect((await erase(held)).status).toBe(202);
    // The state such an erasure left: the original at its library key, an intent without heldCopy.
    const [heldKey] = await objectsOf(held);
    const objectKey = (heldKey as string).slice('held/'.length);
    const { copyObject, deleteImageObject } = await import('../../functions/store/image-object-store.ts');
    const { dynamo } = await import('../../functions/shared/clients/dynamodb.ts');
    const { erasureIntentKey } = await import('../../functions/store/keys.ts');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await copyObject(heldKey as string, objectKey);
    await deleteImageObject(heldKey as string);
    await dynamo.send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: erasureIntentKey(held),
        UpdateExpression: 'REMOVE heldCopy',
      }),
    );

    const artwork = await service.request('GET', `/order/${orderGuid}/artwork`, { apiKey: parties.fulfilmentKey });
    expect(artwork.status, artwork.text).toBe(200);
    const [item] = artwork.body.Lines[0].Items;
    const followed = await fetch(item.DownloadLink, { redirect: 'manual' });
    expect(followed.status, await followed.clone().text()).toBe(307);
    for (const url of [item.DownloadUrl, followed.headers.get('location') as string]) {
      const download = await fetch(url);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes.get(held) as Buffer)).toBe(true);
    }
  });

  it('waits for an unpaid checkout until CHECKOUT_HOLD_HOURS after it, then goes ahead and closes it', async () => {
    const [held] = (await parties.photos(1, { claim: true })).itemGuids as [string];
    const checkout = await parties.checkOut(await parties.basketWith([await parties.projectWith([held])]));
    expect(checkout.status, checkout.text).toBe(200);
    const scheduled = await erase(held);
    expect(scheduled.status, scheduled.text).toBe(202);

    await holdsEndBy(Date.now() + 23 * HOUR);
    expect(await objectsOf(held)).toHaveLength(1);
    // Past the hold's end, long before the checkout expires.
    await holdsEndBy(Date.now() + 25 * HOUR);
    expect(await objectsOf(held)).toEqual([]);
    expect(await itemRecordsOf(service, held)).toEqual([]);
    const refused = await service.request('POST', `/checkout/${checkoutIdOf(checkout)}/complete`, {
      apiKey: parties.siteKey,
      json: { PaymentReference: 'pay-after-hold' },
    });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.Error).toMatchObject({ Code: 'ArtworkErased', ItemGuids: [held] });
  });
});
