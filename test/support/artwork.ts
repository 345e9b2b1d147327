/**
 * The parties of an order's artwork over HTTP, for the tests of issue 33: a client app pushing photos, a
 * signed-in customer claiming them and buying, the catalog naming them as a project's artwork, the checkout
 * site taking payment and the lab (fulfilment key).
 */
import { expect } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { png } from './images.ts';
import { pushFiles } from './library-push.ts';
import { snapshotStore } from './store-snapshot.ts';
import { newGuid } from '../../functions/shared/ids.ts';

export interface ArtworkParties {
  service: TestService;
  libraryKey: string;
  catalogKey: string;
  siteKey: string;
  fulfilmentKey: string;
  /** The customer's bearer token. */
  customer: string;
  /** Pushes `count` distinct PNGs (multi pushes of 20), claimed by the customer when asked: guids and bytes. */
  photos(count: number, options?: { claim?: boolean }): Promise<{ itemGuids: string[]; bytes: Map<string, Buffer> }>;
  putProject(guid: string, json: Record<string, unknown>): ReturnType<TestService['request']>;
  /** A new project (version 1) whose artwork is these items. */
  projectWith(itemGuids: string[]): Promise<string>;
  /** A new basket of the customer's, one line per project. */
  basketWith(projects: string[]): Promise<string>;
  checkOut(basketGuid: string): ReturnType<TestService['request']>;
  /** A basket of these projects checked out and paid: the order's guid. */
  paidOrder(projects: string[]): Promise<string>;
}

export const checkoutIdOf = (response: { body: any }) =>
  (response.body.CheckoutUrl as string).split('/').pop() as string;

/**
 * The table records of a library item that an erasure must remove: not the project's artwork record (it stays
 * with its version) nor an event's outbox record (it expires on its own TTL, 7 days after the event).
 */
export const itemRecordsOf = async (service: TestService, itemGuid: string): Promise<string[]> =>
  [...(await snapshotStore(service)).items.keys()].filter(
    (key) => key.includes(itemGuid) && !key.startsWith('PROJECT#') && !key.startsWith('OUTBOX#'),
  );

let seed = 0;

/** `env`: the handlers' configuration for this service (ARTWORK_HOLD_DAYS, say). */
export async function startArtworkParties(name: string, env: Record<string, string> = {}): Promise<ArtworkParties> {
  const service = await startTestService({ env });
  const [libraryKey, catalogKey, siteKey, fulfilmentKey] = await Promise.all([
    service.apiKey(`${name}-app`, 'library'),
    service.apiKey(`${name}-catalog`, 'catalog'),
    service.apiKey(`${name}-site`, 'site'),
    service.apiKey(`${name}-lab`, 'fulfilment'),
  ]);
  const customer = await service.token(`${name}-${Date.now()}`);
  const ok = async (response: Promise<{ status: number; text: string; body: any }>) => {
    const answer = await response;
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const putProject = (guid: string, json: Record<string, unknown>) =>
    service.request('PUT', `/project/${guid}`, { apiKey: catalogKey, json: { UnitPrice: 19.5, Version: 1, ...json } });
  const checkOut = (basketGuid: string) =>
    service.request('POST', `/basket/${basketGuid}/checkout`, { token: customer });
  const basketWith = async (projects: string[]) => {
    const basketGuid = (await ok(service.request('POST', '/basket', { token: customer }))).Guid as string;
    for (const ProjectGuid of projects)
      await ok(
        service.request('POST', `/basket/${basketGuid}/line`, { token: customer, json: { ProjectGuid, Quantity: 1 } }),
      );
    return basketGuid;
  };
  return {
    service,
    libraryKey,
    catalogKey,
    siteKey,
    fulfilmentKey,
    customer,
    async photos(count, options = {}) {
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
        if (options.claim)
          await ok(
            service.request('POST', '/library/claim', {
              token: customer,
              json: { ProductBuilderUrl: pushed.productBuilderUrl },
            }),
          );
        pushed.itemGuids.forEach((guid, index) => bytes.set(guid, images[index] as Buffer));
        itemGuids.push(...pushed.itemGuids);
      }
      return { itemGuids, bytes };
    },
    putProject,
    async projectWith(itemGuids) {
      const guid = newGuid();
      await ok(putProject(guid, { ItemGuids: itemGuids }));
      return guid;
    },
    basketWith,
    checkOut,
    async paidOrder(projects) {
      const checkoutId = checkoutIdOf({ body: await ok(checkOut(await basketWith(projects))) });
      const completed = await ok(
        service.request('POST', `/checkout/${checkoutId}/complete`, {
          apiKey: siteKey,
          json: { PaymentReference: `pay-${newGuid()}` },
        }),
      );
      return completed.Order.OrderGuid as string;
    },
  };
}
