/**
 * What each scope's webhooks are sent of each event, against what that scope reads through the API: real
 * events (a push and its renditions, a checkout, its completion, a status change) reach a site, a fulfilment
 * and a library key's webhooks over HTTP on loopback, each verified with `standardwebhooks`; every body's
 * `data` must equal what the receiving key's own reads of the same resource answer (the site's
 * GET /checkout/{checkoutId} and completion, the lab's status change and artwork read, the app's
 * GET /library/{itemGuid}), and name exactly the fields of its scope's partner form. No body carries a UserId.
 */
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyScope } from '../../functions/auth/principal.ts';
import { newGuid } from '../../functions/shared/ids.ts';
import type { WebhookEventType } from '../../functions/webhooks/event-subscriptions.ts';
import { fieldsFor, PARTNER_FORMS } from '../../functions/webhooks/partner-forms.ts';
import { checkoutIdOf, startArtworkParties, type ArtworkParties } from '../support/artwork.ts';
import {
  headerRecord,
  registerWebhook,
  startWebhookReceiver,
  until,
  type WebhookReceiver,
} from '../support/webhooks.ts';

let parties: ArtworkParties;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  parties = await startArtworkParties('forms', { WEBHOOK_ALLOW_LOOPBACK: 'true' });
});
afterAll(async () => {
  await parties?.service.close();
  await receiver?.close();
});

interface Payload {
  type: WebhookEventType;
  data: Record<string, any>;
}

/** The verified payloads that reached `path`, once `count` have. */
async function received(path: string, secret: string, count: number): Promise<Payload[]> {
  const deliveries = await until(
    `${count} deliveries to ${path}`,
    () => receiver.to(path).length >= count && receiver.to(path),
    30_000,
  );
  return deliveries.map(
    (delivery) => new StandardWebhook(secret).verify(delivery.body, headerRecord(delivery.headers)) as Payload,
  );
}

const ofType = (payloads: Payload[], type: WebhookEventType) => payloads.filter((payload) => payload.type === type);

describe('webhook bodies in their partner forms', () => {
  it("carry, for every event type and scope, what that scope's reads of the resource answer, and no UserId", async () => {
    const { service, siteKey, fulfilmentKey, libraryKey } = parties;
    const subscribe = (apiKey: string, path: string, types: WebhookEventType[]) =>
      registerWebhook(service, apiKey, `${receiver.url}${path}`, types);
    const site = await subscribe(siteKey, '/site', ['BasketCheckedOut', 'OrderCreated', 'OrderStatusChanged']);
    const lab = await subscribe(fulfilmentKey, '/fulfilment', ['OrderCreated', 'OrderStatusChanged']);
    const app = await subscribe(libraryKey, '/library', ['LibraryItemsAdded', 'LibraryItemRenditionsDecided']);

    // The app pushes two photos, the customer claims them, the catalog makes them a project's artwork.
    const { itemGuids } = await parties.photos(2, { claim: true });
    const framed = await parties.projectWith(itemGuids);
    const plain = newGuid();
    expect((await parties.putProject(plain, { Name: 'Plain print' })).status).toBe(200);
    const checkoutId = checkoutIdOf(await parties.checkOut(await parties.basketWith([framed, plain])));

    // The site reads the checkout, takes payment; the lab reads the artwork and moves the order on.
    const asSite = { apiKey: siteKey };
    const openCheckout = (await service.request('GET', `/checkout/${checkoutId}`, asSite)).body.Checkout;
    const complete = { ...asSite, json: { PaymentReference: 'psp-partner-forms' } };
    const created = (await service.request('POST', `/checkout/${checkoutId}/complete`, complete)).body.Order;
    const orderGuid = created.OrderGuid as string;
    const asLab = { apiKey: fulfilmentKey };
    const artwork = (await service.request('GET', `/order/${orderGuid}/artwork`, asLab)).body;
    const moved = await service.request('PUT', `/order/${orderGuid}/status`, {
      ...asLab,
      json: { Status: 'Processing' },
    });
    expect(moved.status, moved.text).toBe(200);
    const processing = moved.body.Order;
    // The site's read of the order after the change: the completion repeated, as the local site reads it.
    const siteAfter = (await service.request('POST', `/checkout/${checkoutId}/complete`, complete)).body.Order;
    const completedCheckout = (await service.request('GET', `/checkout/${checkoutId}`, asSite)).body.Checkout;
    const items = await Promise.all(
      itemGuids.map(async (guid) => {
        await until(
          `the renditions of ${guid}`,
          async () => {
            const read = await service.request('GET', `/library/${guid}`, { apiKey: libraryKey });
            return read.body.LibraryItem.Renditions.Status !== 'Pending';
          },
          30_000,
        );
        return (await service.request('GET', `/library/${guid}`, { apiKey: libraryKey })).body.LibraryItem;
      }),
    );

    const bySite = await received('/site', site.Secret, 3);
    const byLab = await received('/fulfilment', lab.Secret, 2);
    const byApp = await received('/library', app.Secret, 3);

    // What each scope reads of each event's resource, in the fields its delivery names.
    const orderLine = (line: any) => ({
      Id: line.Id,
      ProjectGuid: line.ProjectGuid,
      Name: line.Name,
      ProjectVersion: line.ProjectVersion,
      Quantity: line.Quantity,
      Total: line.Total,
    });
    const read: Record<string, Record<string, unknown>[]> = {
      'site BasketCheckedOut': [
        {
          BasketGuid: openCheckout.BasketGuid,
          OrderTotal: openCheckout.OrderTotal,
          LineCount: openCheckout.Lines.length,
        },
      ],
      'site OrderCreated': [
        {
          OrderGuid: created.OrderGuid,
          BasketGuid: completedCheckout.BasketGuid,
          PaymentReference: complete.json.PaymentReference,
          Status: created.Status,
          OrderTotal: created.OrderTotal,
          Lines: created.Lines.map(orderLine),
        },
      ],
      'site OrderStatusChanged': [
        { OrderGuid: siteAfter.OrderGuid, From: created.Status, To: siteAfter.Status, Revision: 2 },
      ],
      'fulfilment OrderCreated': [
        {
          OrderGuid: processing.OrderGuid,
          // The status it was created in: the From of the change whose answer is the lab's read.
          Status: 'OrderReceived',
          OrderTotal: processing.OrderTotal,
          Lines: processing.Lines.map((line: any, index: number) => ({
            ...orderLine(line),
            ArtworkItemCount: artwork.Lines[index].Items.length,
          })),
          ArtworkPath: `/order/${artwork.OrderGuid}/artwork`,
        },
      ],
      'fulfilment OrderStatusChanged': [
        { OrderGuid: processing.OrderGuid, From: 'OrderReceived', To: processing.Status, Revision: 2 },
      ],
      'library LibraryItemsAdded': [{ ItemGuids: items.map((item) => item.ItemGuid) }],
      'library LibraryItemRenditionsDecided': items.map((item) => ({
        ItemGuid: item.ItemGuid,
        Status: item.Renditions.Status,
        ...(item.Renditions.Reason === undefined ? {} : { Reason: item.Renditions.Reason }),
      })),
    };
    const deliveredTo: Record<string, Payload[]> = { site: bySite, fulfilment: byLab, library: byApp };
    for (const [key, expected] of Object.entries(read)) {
      const [scope, type] = key.split(' ') as [ApiKeyScope, WebhookEventType];
      const delivered = ofType(deliveredTo[scope]!, type).map((payload) => payload.data);
      expect(delivered, key).toEqual(expect.arrayContaining(expected));
      expect(delivered, key).toHaveLength(expected.length);
      // Exactly the form's fields (Reason only when renditions failed).
      const form = fieldsFor(PARTNER_FORMS[type], scope).map(([name]) => name);
      for (const data of delivered) expect(form, key).toEqual(expect.arrayContaining(Object.keys(data)));
    }
    // The ArtworkPath is the lab's read, and the lab's alone.
    expect(
      (await service.request('GET', read['fulfilment OrderCreated']![0]!.ArtworkPath as string, asLab)).status,
    ).toBe(200);
    expect((await service.request('GET', `/order/${orderGuid}/artwork`, asSite)).status).toBe(403);
    for (const payload of [...bySite, ...byLab, ...byApp]) expect(JSON.stringify(payload.data)).not.toMatch(/UserId/);
  }, 90_000);
});
