/**
 * An unpaid checkout holds its artwork for CHECKOUT_HOLD_HOURS at most, over HTTP against the local stack
 * (0 hours here, so every unpaid checkout is past them): an erasure goes ahead at once and closes the
 * checkout, whose completion is then 409 ArtworkErased; a completion and an erasure racing decide on the same
 * checkout record, so 50 rounds in both orders of arrival never end with a paid order whose original is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutIdOf, startArtworkParties, type ArtworkParties } from '../support/artwork.ts';

let parties: ArtworkParties;

beforeAll(async () => {
  parties = await startArtworkParties('unpaid-hold', { CHECKOUT_HOLD_HOURS: '0' });
}, 60_000);
afterAll(() => parties?.service.close());

const erase = (itemGuid: string) =>
  parties.service.request('DELETE', `/library/${itemGuid}`, { token: parties.customer });
const complete = (checkoutId: string) =>
  parties.service.request('POST', `/checkout/${checkoutId}/complete`, {
    apiKey: parties.siteKey,
    json: { PaymentReference: `pay-${checkoutId}` },
  });

/** An unpaid checkout of a project naming `itemGuid`. */
async function unpaidCheckout(itemGuid: string): Promise<string> {
  const checkout = await parties.checkOut(await parties.basketWith([await parties.projectWith([itemGuid])]));
  expect(checkout.status, checkout.text).toBe(200);
  return checkoutIdOf(checkout);
}

describe('an unpaid checkout past CHECKOUT_HOLD_HOURS', { timeout: 90_000 }, () => {
  it('keeps nothing: the erasure goes ahead, and completing the checkout is 409 ArtworkErased naming the item', async () => {
    const [itemGuid] = (await parties.photos(1, { claim: true })).itemGuids as [string];
    const checkoutId = await unpaidCheckout(itemGuid);

    const erased = await erase(itemGuid);
    expect(erased.status, erased.text).toBe(200);
    const refused = await complete(checkoutId);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.Error).toMatchObject({ Code: 'ArtworkErased', ItemGuids: [itemGuid] });
    // For the site, the checkout is gone.
    const read = await parties.service.request('GET', `/checkout/${checkoutId}`, { apiKey: parties.siteKey });
    expect(read.status, read.text).toBe(404);
  });

  it('races its completion against an erasure: 50 rounds, both orders, never a paid order without its original', async () => {
    const { itemGuids, bytes } = await parties.photos(50, { claim: true });
    const outcomes = { paid: 0, erased: 0 };
    for (const [round, itemGuid] of itemGuids.entries()) {
      const checkoutId = await unpaidCheckout(itemGuid);
      const [completion, erasure] =
        round % 2 === 0
          ? await Promise.all([complete(checkoutId), erase(itemGuid)])
          : await Promise.all([erase(itemGuid), complete(checkoutId)]).then(([e, c]) => [c, e] as const);
      if (completion.status === 200) {
        // Paid first: the erasure waits for the order's hold, and the lab reads the original.
        outcomes.paid++;
        expect(erasure.status, erasure.text).toBe(202);
        const orderGuid = completion.body.Order.OrderGuid as string;
        const artwork = await parties.service.request('GET', `/order/${orderGuid}/artwork`, {
          apiKey: parties.fulfilmentKey,
        });
        expect(artwork.status, artwork.text).toBe(200);
        const [item] = artwork.body.Lines[0].Items;
        const download = await fetch(item.DownloadUrl);
        expect(download.status).toBe(200);
        expect(Buffer.from(await download.arrayBuffer()).equals(bytes.get(itemGuid) as Buffer)).toBe(true);
      } else {
        // Erased first: no order.
        outcomes.erased++;
        expect(erasure.status, erasure.text).toBe(200);
        expect(completion.status, completion.text).toBe(409);
        expect(completion.body.Error).toMatchObject({ Code: 'ArtworkErased', ItemGuids: [itemGuid] });
      }
    }
    expect(outcomes.paid + outcomes.erased).toBe(50);
  }, 300_000);
});
