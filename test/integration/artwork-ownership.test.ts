/**
 * An order's artwork belongs to its buyer, and its holds stay bounded, over HTTP against the local stack: a
 * checkout whose project names library items another user claimed is 409 ArtworkNotYours naming them, and
 * writes nothing (no hold mark, no snapshot, no event); items of an anonymous upload nobody claimed stay
 * allowed. A basket checked out again unchanged answers its open checkout: 200 checkouts make one checkout
 * and one hold mark on each item. An item full of marks (MAX_HOLD_MARKS) has its dead ones taken off by its
 * next checkout, which goes through; full of marks that may still hold, it is 409 ArtworkHoldsFull.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOLD_PENDING_MS, MAX_HOLD_MARKS } from '../../functions/domain/artwork-hold.ts';
import { startArtworkParties, type ArtworkParties } from '../support/artwork.ts';
import { snapshotStore, storeDiff } from '../support/store-snapshot.ts';
import { checkoutIdOf } from '../support/artwork.ts';

let parties: ArtworkParties;
/** A second signed-in customer, Bob; the parties' customer is Alice. */
let bob: string;

beforeAll(async () => {
  parties = await startArtworkParties('ownership');
  bob = await parties.service.token(`ownership-bob-${Date.now()}`);
}, 60_000);
afterAll(() => parties?.service.close());

/** A new basket of Bob's, one line per project. */
async function bobsBasket(projects: string[]): Promise<string> {
  const { service } = parties;
  const basket = await service.request('POST', '/basket', { token: bob });
  expect(basket.status, basket.text).toBe(200);
  for (const ProjectGuid of projects) {
    const line = await service.request('POST', `/basket/${basket.body.Guid}/line`, {
      token: bob,
      json: { ProjectGuid, Quantity: 1 },
    });
    expect(line.status, line.text).toBe(200);
  }
  return basket.body.Guid as string;
}

const bobChecksOut = (basketGuid: string) =>
  parties.service.request('POST', `/basket/${basketGuid}/checkout`, { token: bob });

describe('artwork belongs to the buyer', { timeout: 90_000 }, () => {
  it("refuses Bob's checkout of a project naming Alice's claimed photos: 409 naming them, nothing written", async () => {
    const alices = (await parties.photos(2, { claim: true })).itemGuids;
    const unclaimed = (await parties.photos(1)).itemGuids;
    const project = await parties.projectWith([...unclaimed, ...alices]);
    const basketGuid = await bobsBasket([project]);

    const before = await snapshotStore(parties.service);
    const refused = await bobChecksOut(basketGuid);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.Error.Code).toBe('ArtworkNotYours');
    expect([...refused.body.Error.ItemGuids].sort()).toEqual([...alices].sort());
    expect(storeDiff(before, await snapshotStore(parties.service))).toEqual([]);

    // Alice buys the same project: her photos and the unclaimed upload are hers to print.
    expect((await parties.checkOut(await parties.basketWith([project]))).status).toBe(200);
  });

  it('allows items of an anonymous upload nobody claimed', async () => {
    const unclaimed = (await parties.photos(2)).itemGuids;
    const checkout = await bobChecksOut(await bobsBasket([await parties.projectWith(unclaimed)]));
    expect(checkout.status, checkout.text).toBe(200);
  });
});

describe('bounded holds', { timeout: 90_000 }, () => {
  it('answers 200 checkouts of an unchanged basket with one checkout, and marks each item once', async () => {
    const { itemGuids } = await parties.photos(2, { claim: true });
    const basketGuid = await parties.basketWith([await parties.projectWith(itemGuids)]);
    const checkouts = (snapshot: Awaited<ReturnType<typeof snapshotStore>>) =>
      [...snapshot.items.keys()].filter((key) => key.startsWith('CHECKOUT#')).length;
    const before = checkouts(await snapshotStore(parties.service));

    const ids = new Set<string>();
    for (let round = 0; round < 200; round++) {
      const checkout = await parties.checkOut(basketGuid);
      expect(checkout.status, checkout.text).toBe(200);
      ids.add(checkoutIdOf(checkout));
    }
    expect(ids.size).toBe(1);
    const after = await snapshotStore(parties.service);
    expect(checkouts(after) - before).toBe(1);
    for (const itemGuid of itemGuids)
      expect(after.items.get(`LIBITEM#${itemGuid}|LIBITEM`)?.holds?.SS, itemGuid).toHaveLength(1);
  });

  /** The item's record straight from the table, and a way to write it (modules of the running stack). */
  async function itemTable(itemGuid: string) {
    const { dynamo } = await import('../../functions/shared/clients/dynamodb.ts');
    const { libraryItemKey } = await import('../../functions/store/keys.ts');
    const { tableName } = (await import('../../functions/shared/config.ts')).config;
    return { dynamo, TableName: tableName, Key: libraryItemKey(itemGuid) };
  }

  async function itemRecord(itemGuid: string): Promise<Record<string, unknown>> {
    const { dynamo, ...where } = await itemTable(itemGuid);
    return (await dynamo.send(new GetCommand(where))).Item ?? {};
  }

  /** Fills the item with MAX_HOLD_MARKS marks of checkouts that never wrote a record, taken at `takenAt`. */
  async function fillWithMarks(itemGuid: string, takenAt: number): Promise<void> {
    const { dynamo, ...where } = await itemTable(itemGuid);
    const marks = Array.from({ length: MAX_HOLD_MARKS }, (_, index) => `${takenAt}:never-${index}`);
    await dynamo.send(
      new UpdateCommand({
        ...where,
        UpdateExpression: 'SET holds = :marks, holdRevision = :revision',
        ExpressionAttributeValues: { ':marks': new Set(marks), ':revision': MAX_HOLD_MARKS },
      }),
    );
  }

  it('takes dead marks off an item full of them, and the checkout goes through', async () => {
    const { itemGuids } = await parties.photos(1, { claim: true });
    const itemGuid = itemGuids[0] as string;
    await fillWithMarks(itemGuid, Date.now() - 2 * HOLD_PENDING_MS);
    const checkout = await parties.checkOut(await parties.basketWith([await parties.projectWith(itemGuids)]));
    expect(checkout.status, checkout.text).toBe(200);
    // Only the new checkout's mark is left.
    const holds = [...((await itemRecord(itemGuid)).holds as Set<string>)];
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatch(new RegExp(`:${checkoutIdOf(checkout)}$`));
  });

  it('refuses an item full of marks that may still hold: 409 ArtworkHoldsFull naming it', async () => {
    const { itemGuids } = await parties.photos(1, { claim: true });
    await fillWithMarks(itemGuids[0] as string, Date.now());
    const refused = await parties.checkOut(await parties.basketWith([await parties.projectWith(itemGuids)]));
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.Error.Code).toBe('ArtworkHoldsFull');
    expect(refused.body.Error.ItemGuids).toEqual(itemGuids);
  });
});
