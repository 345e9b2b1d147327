/**
 * The client against the real local service (what `npm start` runs): every route of the route table is
 * called through the client (a recording fetch proves it), with typed answers, wire dates as `Date`s,
 * typed errors, and pushes from each kind of input.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.ts';
import { gif, jpeg, photoOfSize, png, pngOfSize } from '../../test/support/images.ts';
import { routes } from '../../functions/routes.ts';
import { partPlan } from '../../functions/domain/multipart-upload.ts';
import {
  ApiError,
  libraryUploads,
  partSizeFor,
  PhotoCommerceClient,
  type Basket,
  type ClientOptions,
} from '../src/index.ts';

let service: TestService;
let imageServer: Server;
let images: string;
const called = new Set<string>();
let user: PhotoCommerceClient;
let library: PhotoCommerceClient;
let site: PhotoCommerceClient;
let catalog: PhotoCommerceClient;
let fulfilment: PhotoCommerceClient;

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex').toUpperCase();
const GUID = /^[0-9a-f]{32}$/;

/** Records which route each request hit, by matching the URL against the route table's path templates. */
const recordingFetch: typeof fetch = (input, init) => {
  const url = new URL(String(input));
  const route = routes.find(
    (candidate) =>
      candidate.method === (init?.method ?? 'GET') &&
      new RegExp(`^${candidate.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(url.pathname),
  );
  if (route) called.add(`${route.method} ${route.path}`);
  return fetch(input, init);
};

beforeAll(async () => {
  imageServer = createServer((request, response) => {
    const body = request.url === '/a.png' ? png(3, 2, 1) : request.url === '/b.jpg' ? jpeg('pulled') : undefined;
    if (body)
      response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length }).end(body);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  images = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
  service = await startTestService({ env: { PULL_ALLOW_LOOPBACK: 'true', WEBHOOK_ALLOW_LOOPBACK: 'true' } });
  const base: ClientOptions = { baseUrl: service.url, fetch: recordingFetch };
  user = new PhotoCommerceClient({ ...base, token: () => service.token('client-user') });
  library = new PhotoCommerceClient({ ...base, apiKey: await service.apiKey('client-library', 'library') });
  site = new PhotoCommerceClient({ ...base, apiKey: await service.apiKey('client-site', 'site') });
  catalog = new PhotoCommerceClient({ ...base, apiKey: await service.apiKey('client-catalog', 'catalog') });
  fulfilment = new PhotoCommerceClient({ ...base, apiKey: await service.apiKey('client-fulfilment', 'fulfilment') });
});

afterAll(async () => {
  imageServer?.closeAllConnections();
  imageServer?.close();
  await service?.close();
});

describe('public endpoints', () => {
  it('health and the OpenAPI document (whose example dates stay strings: only date fields are converted)', async () => {
    expect(await user.health()).toEqual({ Status: 'ok' });
    const document = await user.openApi();
    expect(document.openapi).toBe('3.1.0');
    expect(JSON.stringify(document)).toContain('/Date(');
  });
});

describe('projects, baskets, checkout and orders', () => {
  let projectGuid = '';

  it('registers and reads a project price', async () => {
    projectGuid = createHash('md5').update(`project-${Date.now()}`).digest('hex');
    const saved = await catalog.projects.put(projectGuid, { UnitPrice: 12.5, Version: 3, Name: 'Poster 50x70' });
    expect(saved).toMatchObject({ ProjectGuid: projectGuid, Name: 'Poster 50x70', UnitPrice: 12.5, Version: 3 });
    expect(saved.LastSavedDateUtc).toBeInstanceOf(Date);
    expect(await catalog.projects.get(projectGuid)).toEqual(saved);
  });

  it('creates a basket, edits its lines, lists it, checks it out, pays and finds the order', async () => {
    const basket: Basket = await user.baskets.create();
    expect(basket.Guid).toMatch(GUID);
    expect(basket.CreatedDateUtc).toBeInstanceOf(Date);
    expect(Math.abs(basket.CreatedDateUtc.getTime() - Date.now())).toBeLessThan(10 * 60_000);

    const added = await user.baskets.addLine(basket.Guid, { ProjectGuid: projectGuid, Quantity: 2 });
    expect(added.Line).toMatchObject({ ProjectGuid: projectGuid, Quantity: 2, Total: 25 });
    const updated = await user.baskets.updateLine(basket.Guid, added.Line.Id, {
      ProjectGuid: projectGuid,
      Quantity: 4,
    });
    expect(updated.Basket.OrderTotal).toBe(50);
    expect(updated.Basket.LastSavedDateUtc).toBeInstanceOf(Date);
    const emptied = await user.baskets.deleteLine(basket.Guid, added.Line.Id);
    expect(emptied.Basket.Lines).toEqual([]);
    await user.baskets.addLine(basket.Guid, { ProjectGuid: projectGuid, Quantity: 1 });

    const listed: Basket[] = [];
    for await (const each of user.baskets.list()) listed.push(each);
    expect(listed.map((each) => each.Guid)).toContain(basket.Guid);
    expect(listed.every((each) => each.CreatedDateUtc instanceof Date)).toBe(true);
    expect((await user.baskets.get(basket.Guid)).OrderTotal).toBe(12.5);

    const { CheckoutUrl } = await user.baskets.checkout(basket.Guid);
    const checkoutId = CheckoutUrl.split('/').pop() as string;
    const { Checkout } = await site.checkouts.get(checkoutId);
    expect(Checkout).toMatchObject({ BasketGuid: basket.Guid, OrderTotal: 12.5, Currency: 'EUR', Status: 'Open' });
    expect(Checkout.Lines.map((line) => line.Name)).toEqual(['Poster 50x70']);
    expect(Checkout.ExpiresDateUtc.getTime()).toBeGreaterThan(Checkout.CreatedDateUtc.getTime());

    const { Order } = await site.checkouts.complete(checkoutId, { PaymentReference: 'client-test' });
    expect(Order).toMatchObject({ OrderTotal: 12.5, Status: 'OrderReceived' });
    expect(Order.CompletedDateUtc).toBeInstanceOf(Date);
    const orders = await user.orders.list().toArray();
    expect(orders.map((order) => order.OrderGuid)).toContain(Order.OrderGuid);
    expect(await user.orders.list({ projectguid: projectGuid }).toArray()).toHaveLength(1);
    expect((await user.orders.get(Order.OrderGuid)).Lines[0]).toMatchObject({
      ProjectGuid: projectGuid,
      ProjectVersion: 3,
    });
    const moved = await fulfilment.orders.updateStatus(Order.OrderGuid, { Status: 'Processing' });
    expect(moved.Order.Status).toBe('Processing');
    // The project names no artwork: its line prints none.
    const artwork = await fulfilment.orders.artwork(Order.OrderGuid).toArray();
    expect(artwork).toEqual([{ Id: 2, ProjectGuid: projectGuid, ProjectVersion: 3, Items: [] }]);
    // The lab has started: the customer's cancel is refused, naming the status.
    await expect(user.orders.cancel(Order.OrderGuid)).rejects.toMatchObject({ status: 409, code: 'OrderInProduction' });
    const second = await user.baskets.create();
    await user.baskets.addLine(second.Guid, { ProjectGuid: projectGuid, Quantity: 1 });
    const secondCheckout = (await user.baskets.checkout(second.Guid)).CheckoutUrl.split('/').pop() as string;
    const secondOrder = (await site.checkouts.complete(secondCheckout, { PaymentReference: 'client-cancel' })).Order;
    expect((await user.orders.cancel(secondOrder.OrderGuid)).Order.Status).toBe('Cancelled');

    const other = await user.baskets.create();
    expect(await user.baskets.delete(other.Guid)).toEqual({ BasketGuid: other.Guid, Deleted: true });
  });

  it("follows a DownloadLink with no credential: a made-up one is the service's 403 InvalidLink", async () => {
    // test/integration/artwork-links.test.ts follows real ones to the originals' bytes.
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const forged = `${service.url}/order/${'1'.repeat(32)}/artwork/${'0'.repeat(32)}?line=2&expires=${expires}&signature=${'A'.repeat(43)}`;
    await expect(fulfilment.orders.original(forged)).rejects.toMatchObject({ status: 403, code: 'InvalidLink' });
  });

  it('follows NextCursor from page to page: 5 baskets and 3 orders two at a time', async () => {
    const pager = new PhotoCommerceClient({
      baseUrl: service.url,
      fetch: recordingFetch,
      token: () => service.token('client-pager'),
    });
    const orders: string[] = [];
    for (let count = 0; count < 3; count += 1) {
      // A paid basket becomes its order and leaves the basket list.
      const basketGuid = (await pager.baskets.create()).Guid;
      await pager.baskets.addLine(basketGuid, { ProjectGuid: projectGuid, Quantity: 1 });
      const checkoutId = (await pager.baskets.checkout(basketGuid)).CheckoutUrl.split('/').pop() as string;
      orders.push(
        (await site.checkouts.complete(checkoutId, { PaymentReference: `pager-${basketGuid}` })).Order.OrderGuid,
      );
    }
    const baskets: string[] = [];
    for (let count = 0; count < 5; count += 1) baskets.push((await pager.baskets.create()).Guid);

    const basketPages: Basket[][] = [];
    for await (const page of pager.baskets.list({ limit: 2 }).pages()) basketPages.push(page.Baskets);
    expect(basketPages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(
      basketPages
        .flat()
        .map((basket) => basket.Guid)
        .sort(),
    ).toEqual([...baskets].sort());
    expect((await pager.baskets.list({ limit: 2 }).firstPage()).NextCursor).toEqual(expect.any(String));

    const listed = await pager.orders.list({ limit: 2 }).toArray();
    expect(listed.map((order) => order.OrderGuid).sort()).toEqual([...orders].sort());
    const orderPages: number[] = [];
    for await (const page of pager.orders.list({ limit: 2 }).pages()) orderPages.push(page.Orders.length);
    expect(orderPages).toEqual([2, 1]);
  });

  it('throws typed errors with the extra fields', async () => {
    const basket = await user.baskets.create();
    const invalid = await user.baskets
      .addLine(basket.Guid, { ProjectGuid: projectGuid, Quantity: 0 })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'ValidationFailed', fields: ['Quantity'], retryable: false });
    const unknownProject = await user.baskets
      .addLine(basket.Guid, { ProjectGuid: '0'.repeat(32), Quantity: 1 })
      .catch((error: unknown) => error);
    expect(unknownProject).toMatchObject({ status: 400, code: 'UnknownProject', fields: ['ProjectGuid'] });
    const missing = await user.baskets.get('f'.repeat(32)).catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, code: 'BasketNotFound' });
    expect((missing as ApiError).requestId).toEqual(expect.any(String));
    const wrongCredential = await library.orders
      .updateStatus('f'.repeat(32), { Status: 'Shipped' })
      .catch((error: unknown) => error);
    expect(wrongCredential).toMatchObject({ status: 403, code: 'Forbidden' });
  });
});

describe('library', () => {
  it('pushes from a Blob, a File, a Uint8Array, a Node Readable and a web ReadableStream', async () => {
    const inputs = [png(2, 2, 11), png(2, 2, 12), png(2, 2, 13), png(2, 2, 14), png(2, 2, 15), png(2, 2, 16)];
    const bytes = inputs.map((input) => new Uint8Array(input));
    const webStream = (data: Uint8Array) => new Blob([data]).stream();
    const results = [
      await library.library.push(new Blob([bytes[0]!], { type: 'image/png' })),
      await library.library.push(new File([bytes[1]!], 'photo.png', { type: 'image/png' })),
      await library.library.push(bytes[2]!),
      await library.library.push({
        data: Readable.from([inputs[3]!.subarray(0, 20), inputs[3]!.subarray(20)]),
        filename: 'streamed.png',
      }),
      await library.library.push(webStream(bytes[4]!)),
      // A browser whose ReadableStream is not async-iterable: only getReader() is there.
      await library.library.push({
        getReader: () => webStream(bytes[5]!).getReader(),
      } as unknown as ReadableStream<Uint8Array>),
    ];
    expect(results.map((result) => result.LibraryItem.FileMd5)).toEqual(inputs.map(md5));
    expect(results[3]!.ProductBuilderUrl).toMatch(/\/builder\//);
  });

  it('keeps request order in multi push and multi pull, and reports failed items by index', async () => {
    const pushed = [jpeg('one'), png(4, 1, 2), gif()];
    const many = await library.library.pushMany(pushed.map((data) => new Uint8Array(data)));
    expect(many.LibraryItems.map((item) => item.FileMd5)).toEqual(pushed.map(md5));
    expect(many.LibraryItems.map((item) => item.FileMimeType)).toEqual(['image/jpeg', 'image/png', 'image/gif']);

    const failed = await library.library
      .pushMany([new Uint8Array(png(1, 1, 3)), new TextEncoder().encode('not an image')])
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ApiError);
    expect((failed as ApiError).failures?.map((failure) => failure.Index)).toEqual([1]);

    const single = await library.library.pull(`${images}/a.png`);
    expect(single.LibraryItem.FileMd5).toBe(md5(png(3, 2, 1)));
    const pulled = await library.library.pullMany([`${images}/b.jpg`, `${images}/a.png`]);
    expect(pulled.LibraryItems.map((item) => item.FileMd5)).toEqual([md5(jpeg('pulled')), md5(png(3, 2, 1))]);
  });

  it('makes builder URLs for one item and for several', async () => {
    const { LibraryItems } = await library.library.pushMany([
      new Uint8Array(png(1, 2, 7)),
      new Uint8Array(png(2, 1, 7)),
    ]);
    const guids = LibraryItems.map((item) => item.ItemGuid);
    expect((await library.library.builderUrl(guids[0]!)).ProductBuilderUrl).toMatch(/\/builder\/[A-Za-z0-9_-]{20,}$/);
    expect((await library.library.builderUrlForItems(guids)).ProductBuilderUrl).toMatch(
      /\/builder\/[A-Za-z0-9_-]{20,}$/,
    );
  });

  it('reads an item back with its download URL and print quality, and resolves a builder token', async () => {
    const pushed = [png(120, 80, 21), png(60, 90, 22)];
    const { LibraryItems, ProductBuilderUrl } = await library.library.pushMany(
      pushed.map((data) => new Uint8Array(data)),
    );
    const read = await library.library.get(LibraryItems[0]!.ItemGuid);
    expect(read.LibraryItem).toMatchObject({
      ItemGuid: LibraryItems[0]!.ItemGuid,
      Width: 120,
      Height: 80,
      Orientation: 1,
      FileMd5: md5(pushed[0]!),
    });
    expect(read.LibraryItem.PrintQuality).toBeUndefined();
    expect(read.LibraryItem.DownloadExpiresDateUtc).toBeInstanceOf(Date);
    const downloaded = new Uint8Array(await (await fetch(read.LibraryItem.DownloadUrl)).arrayBuffer());
    expect(md5(downloaded)).toBe(md5(pushed[0]!));
    // 120 px over 150 mm (the long side along the image's long side): floor(120 / (150 / 25.4)) = 20 ppi.
    const printed = await library.library.get(LibraryItems[0]!.ItemGuid, { printWidthMm: 100, printHeightMm: 150 });
    expect(printed.LibraryItem.PrintQuality).toEqual({ EffectivePpi: 20, Rating: 'Poor' });
    const foreign = await new PhotoCommerceClient({
      baseUrl: service.url,
      apiKey: await service.apiKey('client-other-app', 'library'),
    }).library
      .get(LibraryItems[0]!.ItemGuid)
      .catch((error: unknown) => error);
    expect(foreign).toMatchObject({ status: 404, code: 'LibraryItemNotFound' });

    const { Builder } = await site.builders.get(ProductBuilderUrl.split('/').pop() as string);
    expect(Builder.Items.map((item) => [item.ItemGuid, item.Width, item.Height])).toEqual(
      LibraryItems.map((item, index) => [item.ItemGuid, index === 0 ? 120 : 60, index === 0 ? 80 : 90]),
    );
    expect(Builder.CreatedDateUtc).toBeInstanceOf(Date);
    expect(await site.builders.get('0'.repeat(32)).catch((error: unknown) => error)).toMatchObject({
      status: 404,
      code: 'BuilderNotFound',
    });
  });

  it("claims a builder link's items into the user's library, lists them a page at a time and deletes one", async () => {
    const owner = new PhotoCommerceClient({
      baseUrl: service.url,
      fetch: recordingFetch,
      token: () => service.token('client-claimer'),
    });
    const { LibraryItems, ProductBuilderUrl } = await library.library.pushMany(
      [png(2, 3, 31), png(3, 2, 32), png(4, 4, 33)].map((data) => new Uint8Array(data)),
    );
    const guids = LibraryItems.map((item) => item.ItemGuid);
    const claimed = await owner.library.claim(ProductBuilderUrl);
    expect(claimed.LibraryItems.map((item) => item.ItemGuid).sort()).toEqual([...guids].sort());
    expect((await owner.library.claim(ProductBuilderUrl)).LibraryItems.map((item) => item.ItemGuid).sort()).toEqual(
      [...guids].sort(),
    );
    const second = await user.library.claim(ProductBuilderUrl).catch((error: unknown) => error);
    expect(second).toMatchObject({ status: 409, code: 'AlreadyClaimed' });

    const pages: number[] = [];
    for await (const page of owner.library.list({ limit: 2 }).pages()) pages.push(page.LibraryItems.length);
    expect(pages).toEqual([2, 1]);
    const listed = await owner.library.list({ limit: 2 }).toArray();
    expect(listed.map((item) => item.ItemGuid).sort()).toEqual([...guids].sort());
    expect(listed.every((item) => item.CreatedDateUtc instanceof Date)).toBe(true);

    expect(await owner.library.delete(guids[1]!)).toEqual({ ItemGuid: guids[1], Deleted: true });
    expect((await owner.library.list().toArray()).map((item) => item.ItemGuid).sort()).toEqual(
      [guids[0], guids[2]].sort(),
    );
    expect(await library.library.get(guids[1]!).catch((error: unknown) => error)).toMatchObject({ status: 404 });
    expect(await owner.library.delete(guids[1]!).catch((error: unknown) => error)).toMatchObject({ status: 404 });
  });

  it('uploads a large image through the presigned upload (create, upload to storage, complete)', async () => {
    const image = pngOfSize(300 * 1024);
    const result = await library.library.upload(new Blob([new Uint8Array(image)]));
    expect(result.LibraryItem).toMatchObject({
      FileMimeType: 'image/png',
      FileSize: image.length,
      FileMd5: md5(image),
    });
    const ticket = await library.library.createUpload();
    expect(ticket.ExpiresDateUtc).toBeInstanceOf(Date);
    const notUploaded = await library.library.completeUpload(ticket.ItemGuid).catch((error: unknown) => error);
    expect(notUploaded).toBeInstanceOf(ApiError);
  });
});

describe('resumable uploads', { timeout: 60_000 }, () => {
  it('start, sign, PUT the parts, list, complete; and abort; the Uppy adapter cuts as the service does', async () => {
    const photo = photoOfSize(6 * 1024 * 1024, 11);
    const upload = await library.library.startResumableUpload({
      FileName: 'photo.jpg',
      ContentType: 'image/jpeg',
      FileSize: photo.length,
    });
    expect(upload).toMatchObject({ PartSize: partSizeFor(photo.length), PartCount: 2 });
    expect(upload.ExpiresDateUtc).toBeInstanceOf(Date);
    const { Parts } = await library.library.signUploadParts(upload.ItemGuid, [1, 2]);
    const etags = await Promise.all(
      Parts.map(async (part) => {
        const bytes = photo.subarray((part.PartNumber - 1) * upload.PartSize, part.PartNumber * upload.PartSize);
        const answer = await fetch(part.Url, { method: 'PUT', body: bytes });
        return { PartNumber: part.PartNumber, ETag: answer.headers.get('etag') ?? '' };
      }),
    );
    expect((await library.library.getResumableUpload(upload.ItemGuid)).Parts).toHaveLength(2);
    const done = await library.library.completeResumableUpload(upload.ItemGuid, { Parts: etags });
    expect(done.LibraryItem).toMatchObject({ FileSize: photo.length, FileMd5: md5(photo) });

    const other = await library.library.startResumableUpload({
      FileName: 'x.jpg',
      ContentType: 'image/jpeg',
      FileSize: 10,
    });
    expect(await library.library.abortResumableUpload(other.ItemGuid)).toEqual({
      ItemGuid: other.ItemGuid,
      Aborted: true,
    });
    for (const size of [1, 5 * 1024 * 1024, 50 * 1024 * 1024 * 1024, 2 ** 31])
      expect(libraryUploads(library).getChunkSize({ size })).toBe(partPlan(size).partSize);
  });
});

describe('webhooks', () => {
  it('registers, lists, changes and rotates; a delivery verifies with standardwebhooks; the log and a redelivery', async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    const receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const headers = Object.fromEntries(
          Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
        );
        received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const until = async (count: number) => {
      for (let waited = 0; received.length < count; waited += 25) {
        if (waited > 15_000) throw new Error(`${count} deliveries did not arrive`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const created = await site.webhooks.create({ Url: url, EventTypes: ['OrderCreated'] });
      expect(created).toMatchObject({ Url: url, Status: 'Enabled', EventTypes: ['OrderCreated'] });
      expect(created.CreatedDateUtc).toBeInstanceOf(Date);
      expect((await site.webhooks.list()).Webhooks.map((webhook) => webhook.WebhookId)).toContain(created.WebhookId);
      expect((await site.webhooks.get(created.WebhookId)).Url).toBe(url);
      const updated = await site.webhooks.update(created.WebhookId, { EventTypes: ['BasketCheckedOut'] });
      expect(updated.EventTypes).toEqual(['BasketCheckedOut']);
      const { Secret } = await site.webhooks.rotateSecret(created.WebhookId);

      const basket = await user.baskets.create();
      await user.baskets.addLine(basket.Guid, { ProjectGuid: await service.project(4), Quantity: 1 });
      await user.baskets.checkout(basket.Guid);
      await until(1);
      // What a receiver does: verify with the library and the secret, then trust the payload.
      const payload = new Webhook(Secret).verify(received[0]!.body, received[0]!.headers) as { type: string };
      expect(payload.type).toBe('BasketCheckedOut');

      // The first attempt's outcome is recorded just after the receiver answers; a redelivery before is 409.
      const settled = async () => {
        const listed = [];
        for await (const delivery of site.webhooks.deliveries(created.WebhookId)) listed.push(delivery);
        return listed[0]?.State === 'Pending' ? undefined : listed;
      };
      let deliveries = await settled();
      while (deliveries === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        deliveries = await settled();
      }
      expect(deliveries.map((delivery) => delivery.DeliveryId)).toEqual([received[0]!.headers['webhook-id']]);
      expect(deliveries[0]!.CreatedDateUtc).toBeInstanceOf(Date);
      const again = await site.webhooks.redeliver(created.WebhookId, deliveries[0]!.DeliveryId);
      expect(again).toEqual({ DeliveryId: deliveries[0]!.DeliveryId, State: 'Pending' });
      await until(2);
      expect(received[1]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
      expect(await site.webhooks.delete(created.WebhookId)).toEqual({ WebhookId: created.WebhookId, Deleted: true });
    } finally {
      receiver.close();
    }
  }, 60_000);
});

describe('coverage', () => {
  it('called every route of the route table through the client', () => {
    const message =
      'a new route needs a method in client/src/client.ts (after `npm run generate -w client`) and a call in this file';
    expect([...called].sort(), message).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
  });
});
