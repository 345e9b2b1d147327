/**
 * ARTWORK_HOLD_DAYS=0 over HTTP: no reprint window, so an order's completion itself ends the hold, and an
 * erasure the customer asked for while the order was open happens with the next TTL pass at the real clock.
 * (The 30-day default: artwork-holds.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemRecordsOf, startArtworkParties, type ArtworkParties } from '../support/artwork.ts';
import { libraryObjectKeyOf } from '../support/store-snapshot.ts';

let parties: ArtworkParties;

beforeAll(async () => {
  parties = await startArtworkParties('hold-window', { ARTWORK_HOLD_DAYS: '0' });
}, 60_000);
afterAll(() => parties?.service.close());

describe('ARTWORK_HOLD_DAYS=0', () => {
  it('ends the hold with the completion: the scheduled erasure happens at the next TTL pass', async () => {
    const { service, customer, fulfilmentKey } = parties;
    const [held] = (await parties.photos(1, { claim: true })).itemGuids as [string];
    const orderGuid = await parties.paidOrder([await parties.projectWith([held])]);
    const scheduled = await service.request('DELETE', `/library/${held}`, { token: customer });
    expect(scheduled.status, scheduled.text).toBe(202);

    // Still held while the order is being made.
    await service.expireTtl(Date.now() + 2000);
    expect(await libraryObjectKeyOf(service.storage, held, { held: true })).toBeDefined();

    for (const Status of ['Processing', 'Shipped', 'Completed']) {
      const changed = await service.request('PUT', `/order/${orderGuid}/status`, {
        apiKey: fulfilmentKey,
        json: { Status },
      });
      expect(changed.status, changed.text).toBe(200);
    }
    // The release, then the released intent's expiry: both at (a moment after) the real clock.
    await service.expireTtl(Date.now() + 2000);
    await service.expireTtl(Date.now() + 2000);
    expect(await libraryObjectKeyOf(service.storage, held, { held: true })).toBeUndefined();
    expect(await itemRecordsOf(service, held)).toEqual([]);
  });
});
