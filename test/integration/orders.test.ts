import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessIt } from '../support/bundles.ts';
import { inRouteHandler } from '../support/running-function.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let alice: string;
let bob: string;
let siteKey: string;
let fulfilmentKey: string;
let photoBook: string;
let canvas: string;

beforeAll(async () => {
  service = await startTestService();
  alice = await service.token('alice');
  bob = await service.token('bob');
  siteKey = await service.apiKey('checkout-site', 'site');
  fulfilmentKey = await service.apiKey('fulfilment', 'fulfilment');
  photoBook = await service.project(29.99, 1, 'Photo book A4, 24 pages');
  // Registered without a name, as every project was before names: its lines answer Name null.
  canvas = await service.project(49.5);
});
afterAll(() => service?.close());

const DATE = /^\/Date\(\d+\)\/$/;
const UNSET = '/Date(-62135596800000+0000)/';
const MISSING = '0'.repeat(32);

interface CheckedOut {
  basketGuid: string;
  checkoutId: string;
}

/** A basket with the given lines, checked out: what the checkout site gets in its URL. */
async function checkedOutBasket(lines: [string, number][], token = alice): Promise<CheckedOut> {
  const basketGuid = (await service.request('POST', '/basket', { token })).body.Guid as string;
  for (const [ProjectGuid, Quantity] of lines) {
    const added = await service.request('POST', `/basket/${basketGuid}/line`, {
      token,
      json: { ProjectGuid, Quantity },
    });
    expect(added.status).toBe(200);
  }
  const checkout = await service.request('POST', `/basket/${basketGuid}/checkout`, { token });
  expect(checkout.status).toBe(200);
  const checkoutId = (checkout.body.CheckoutUrl as string).split('/').pop() as string;
  return { basketGuid, checkoutId };
}

const complete = (checkoutId: string, PaymentReference = `pay-${checkoutId.slice(0, 8)}`) =>
  service.request('POST', `/checkout/${checkoutId}/complete`, { apiKey: siteKey, json: { PaymentReference } });

const setStatus = (orderGuid: string, Status: string) =>
  service.request('PUT', `/order/${orderGuid}/status`, { apiKey: fulfilmentKey, json: { Status } });

const orderGuids = async (token: string, query = '') =>
  ((await service.request('GET', `/orders${query}`, { token })).body.Orders as { OrderGuid: string }[]).map(
    (order) => order.OrderGuid,
  );

interface EventLine {
  id: string;
  source: string;
  'detail-type': string;
  time: string;
  detail: Record<string, unknown>;
}

/** The published events: what the table stream's publisher has appended to the events file, once it read the stream now. */
async function events(): Promise<EventLine[]> {
  await service.drainStream();
  return readFileSync(join(service.dataDir, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as EventLine);
}

interface DynamoCall {
  command: string;
  scanned?: number;
}

const handlerCalls = (calls: DynamoCall[]) => calls.map((call) => call.command);

/**
 * Records every DynamoDB call the route's in-process handler makes, with the number of items each one read
 * (`ScannedCount`: what a Query reads before any filter).
 */
async function recordDynamoCalls<T>(work: () => Promise<T>): Promise<{ result: T; calls: DynamoCall[] }> {
  const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
  const calls: DynamoCall[] = [];
  const name = 'record-dynamo-calls';
  dynamoDbClient.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      // The route's handler's calls: not the authorizer's, nor those of functions fed in the background.
      if (inRouteHandler())
        calls.push({
          command: context.commandName as string,
          scanned: (result.output as { ScannedCount?: number }).ScannedCount,
        });
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await work(), calls };
  } finally {
    dynamoDbClient.middlewareStack.remove(name);
  }
}

describe('checkout completion and orders', () => {
  it('runs the whole flow: basket, checkout, complete, list, filter, single order, status changes, events', async () => {
    const { basketGuid, checkoutId } = await checkedOutBasket([
      [photoBook, 2],
      [canvas, 1],
    ]);

    const checkoutLines = [
      { Id: 1, ProjectGuid: photoBook, Quantity: 2, Total: 59.98, Name: 'Photo book A4, 24 pages' },
      { Id: 2, ProjectGuid: canvas, Quantity: 1, Total: 49.5, Name: null },
    ];
    // The list responses show exactly the interface's four fields of a line.
    const listLines = checkoutLines.map(({ Id, ProjectGuid, Quantity, Total }) => ({
      Id,
      ProjectGuid,
      Quantity,
      Total,
    }));
    const snapshot = await service.request('GET', `/checkout/${checkoutId}`, { apiKey: siteKey });
    expect(snapshot.status).toBe(200);
    expect(snapshot.body.Checkout).toEqual({
      CheckoutId: checkoutId,
      BasketGuid: basketGuid,
      Lines: checkoutLines,
      OrderTotal: 109.48,
      Currency: 'EUR',
      Status: 'Open',
      CreatedDateUtc: expect.stringMatching(DATE),
      ExpiresDateUtc: expect.stringMatching(DATE),
    });

    const completed = await complete(checkoutId, 'psp-0001');
    expect(completed.status).toBe(200);
    const order = completed.body.Order;
    expect(order).toEqual({
      OrderGuid: expect.stringMatching(/^[0-9a-f]{32}$/),
      Lines: checkoutLines.map((line) => ({ ...line, ProjectVersion: 1, SubTotal: line.Total, AddOns: [] })),
      OrderTotal: 109.48,
      Status: 'OrderReceived',
      CreatedDateUtc: expect.stringMatching(DATE),
      CompletedDateUtc: UNSET,
      LastSavedDateUtc: order.CreatedDateUtc,
    });
    expect(completed.text).toContain('"CompletedDateUtc":"\\/Date(-62135596800000+0000)\\/"');
    const guid = order.OrderGuid as string;

    // The basket became the order: gone from the list, and reads of it are 404.
    expect(
      ((await service.request('GET', '/baskets', { token: alice })).body.Baskets as { Guid: string }[]).map(
        (b) => b.Guid,
      ),
    ).not.toContain(basketGuid);
    expect((await service.request('GET', `/basket/${basketGuid}`, { token: alice })).status).toBe(404);
    expect((await service.request('GET', `/checkout/${checkoutId}`, { apiKey: siteKey })).body.Checkout).toMatchObject({
      Status: 'Completed',
      OrderGuid: guid,
    });

    const list = await service.request('GET', '/orders', { token: alice });
    expect(list.status).toBe(200);
    const listed = (list.body.Orders as { OrderGuid: string }[]).find((o) => o.OrderGuid === guid);
    expect(listed).toEqual({
      OrderGuid: guid,
      Lines: listLines,
      OrderTotal: 109.48,
      Status: 'OrderReceived',
      CreatedDateUtc: order.CreatedDateUtc,
      CompletedDateUtc: UNSET,
      LastSavedDateUtc: order.LastSavedDateUtc,
    });
    expect(await orderGuids(alice, `?projectguid=${canvas}`)).toContain(guid);
    const otherProject = await service.project(5);
    expect(await orderGuids(alice, `?projectguid=${otherProject}`)).toEqual([]);

    const single = await service.request('GET', `/order/${guid}`, { token: alice });
    expect(single.status).toBe(200);
    expect(single.body).toEqual(order);

    for (const status of ['Processing', 'Shipped', 'Completed']) {
      const changed = await setStatus(guid, status);
      expect(changed.status, status).toBe(200);
      expect(changed.body.Order.Status).toBe(status);
    }
    const done = (await service.request('GET', `/order/${guid}`, { token: alice })).body;
    expect(done.Status).toBe('Completed');
    expect(done.CompletedDateUtc).toMatch(DATE);
    expect(done.CompletedDateUtc).toBe(done.LastSavedDateUtc);
    // The list and the project copies follow the status.
    const filtered = (await service.request('GET', `/orders?projectguid=${photoBook}`, { token: alice })).body
      .Orders as { OrderGuid: string; Status: string }[];
    expect(filtered.find((o) => o.OrderGuid === guid)).toMatchObject({
      Status: 'Completed',
      CompletedDateUtc: done.CompletedDateUtc,
    });

    const illegal = await setStatus(guid, 'Processing');
    expect(illegal.status).toBe(409);
    expect(illegal.body.Error.Code).toBe('IllegalStatusTransition');
    const repeat = await setStatus(guid, 'Completed');
    expect(repeat.status).toBe(200);
    expect(repeat.body.Order.LastSavedDateUtc).toBe(done.LastSavedDateUtc);

    const mine = (await events()).filter(
      (event) => event.detail.BasketGuid === basketGuid || event.detail.OrderGuid === guid,
    );
    expect(mine.map((event) => event['detail-type'])).toEqual([
      'BasketCheckedOut',
      'OrderCreated',
      'OrderStatusChanged',
      'OrderStatusChanged',
      'OrderStatusChanged',
    ]);
    for (const event of mine) {
      expect(event.source).toBe('photo-commerce');
      // The fact's own id, which consumers deduplicate by (EventBridge gives the envelope an id of its own).
      expect(event.detail.EventId).toMatch(new RegExp(`^${event['detail-type']}-[0-9a-f]{32}(-\\d+)?$`));
      expect(Number.isNaN(Date.parse(event.time))).toBe(false);
    }
    expect(mine[1]?.detail).toMatchObject({
      OrderGuid: guid,
      UserId: 'alice',
      BasketGuid: basketGuid,
      PaymentReference: 'psp-0001',
      OrderTotal: 109.48,
      Status: 'OrderReceived',
    });
    // Fulfilment reads what was bought by name too, as the order keeps it.
    expect(((mine[1]?.detail.Lines ?? []) as { Name: string | null }[]).map((line) => line.Name)).toEqual([
      'Photo book A4, 24 pages',
      null,
    ]);
    expect(mine.slice(2).map((event) => [event.detail.From, event.detail.To, event.detail.Revision])).toEqual([
      ['OrderReceived', 'Processing', 2],
      ['Processing', 'Shipped', 3],
      ['Shipped', 'Completed', 4],
    ]);
  });

  it("keeps each line's name as checked out: a later rename reaches neither the snapshot nor the order", async () => {
    const catalogKey = await service.apiKey('catalog-renames', 'catalog');
    const rename = (projectGuid: string, Name: string) =>
      service.request('PUT', `/project/${projectGuid}`, {
        apiKey: catalogKey,
        json: { UnitPrice: 12, Version: 1, Name },
      });
    const poster = await service.project(12, 1, 'Poster 50x70');
    const { checkoutId } = await checkedOutBasket([[poster, 1]]);
    // A rename needs no new version: the same Version is accepted, as for a price.
    expect((await rename(poster, 'Poster 50 x 70 cm, matte')).status).toBe(200);
    const snapshot = await service.request('GET', `/checkout/${checkoutId}`, { apiKey: siteKey });
    expect(snapshot.body.Checkout.Lines).toEqual([
      { Id: 1, ProjectGuid: poster, Quantity: 1, Total: 12, Name: 'Poster 50x70' },
    ]);

    const order = (await complete(checkoutId)).body.Order;
    expect(order.Lines[0]).toMatchObject({ ProjectGuid: poster, Name: 'Poster 50x70' });
    expect((await rename(poster, 'Poster, third name')).status).toBe(200);
    const single = await service.request('GET', `/order/${order.OrderGuid}`, { token: alice });
    expect(single.body.Lines[0].Name).toBe('Poster 50x70');
    // A new checkout takes the name as it is now.
    const next = await checkedOutBasket([[poster, 2]]);
    const nextSnapshot = await service.request('GET', `/checkout/${next.checkoutId}`, { apiKey: siteKey });
    expect(nextSnapshot.body.Checkout.Lines[0].Name).toBe('Poster, third name');
  });

  it('lists lines with exactly Id, ProjectGuid, Quantity and Total on every page, filtered or not', async () => {
    const carol = await service.token(`carol-${randomBytes(4).toString('hex')}`);
    for (let n = 0; n < 3; n++)
      expect(
        (
          await complete(
            (
              await checkedOutBasket(
                [
                  [photoBook, n + 1],
                  [canvas, 1],
                ],
                carol,
              )
            ).checkoutId,
          )
        ).status,
      ).toBe(200);
    for (const filter of ['', `&projectguid=${canvas}`]) {
      let pages = 0;
      let lines = 0;
      let cursor: string | undefined;
      do {
        const query = `?limit=1${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await service.request('GET', `/orders${query}`, { token: carol });
        expect(page.status).toBe(200);
        for (const order of page.body.Orders as { Lines: Record<string, unknown>[] }[])
          for (const line of order.Lines) {
            expect(Object.keys(line).sort()).toEqual(['Id', 'ProjectGuid', 'Quantity', 'Total']);
            lines++;
          }
        cursor = page.body.NextCursor as string | undefined;
        pages++;
      } while (cursor);
      expect(pages, filter || 'unfiltered').toBeGreaterThanOrEqual(3);
      expect(lines, filter || 'unfiltered').toBe(6);
    }
    // The single-order form keeps the name with its other fields.
    const [first] = await orderGuids(carol);
    const single = await service.request('GET', `/order/${first}`, { token: carol });
    expect(Object.keys(single.body.Lines[0]).sort()).toEqual([
      'AddOns',
      'Id',
      'Name',
      'ProjectGuid',
      'ProjectVersion',
      'Quantity',
      'SubTotal',
      'Total',
    ]);
  });

  it('lists newest first', async () => {
    const first = (await complete((await checkedOutBasket([[photoBook, 1]])).checkoutId)).body.Order.OrderGuid;
    const second = (await complete((await checkedOutBasket([[photoBook, 1]])).checkoutId)).body.Order.OrderGuid;
    const guids = await orderGuids(alice);
    expect(guids.indexOf(second)).toBeLessThan(guids.indexOf(first));
    const filtered = await orderGuids(alice, `?projectguid=${photoBook}`);
    expect(filtered.indexOf(second)).toBeLessThan(filtered.indexOf(first));
  });

  it('creates exactly one order from 10 concurrent completion calls', async () => {
    const project = await service.project(7.25);
    const { checkoutId } = await checkedOutBasket([[project, 3]], bob);
    const responses = await Promise.all(Array.from({ length: 10 }, () => complete(checkoutId, 'psp-concurrent')));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    const guids = new Set(responses.map((r) => r.body.Order.OrderGuid as string));
    expect(guids.size).toBe(1);
    const [guid] = [...guids];
    expect(await orderGuids(bob, `?projectguid=${project}`)).toEqual([guid]);
    expect((await orderGuids(bob)).filter((g) => g === guid)).toHaveLength(1);
    // Published at least once, always under the same id, so consumers can drop repeats.
    const created = (await events()).filter(
      (event) => event['detail-type'] === 'OrderCreated' && event.detail.OrderGuid === guid,
    );
    // Recorded once, in the one transaction that made the order.
    expect(created).toHaveLength(1);
    // A later repeat answers the same order.
    expect((await complete(checkoutId, 'psp-concurrent')).body.Order.OrderGuid).toBe(guid);
  });

  it('refuses completion when the basket changed, was deleted or was ordered through another checkout', async () => {
    const changed = await checkedOutBasket([[photoBook, 1]]);
    await service.request('POST', `/basket/${changed.basketGuid}/line`, {
      token: alice,
      json: { ProjectGuid: canvas, Quantity: 1 },
    });
    expect(
      (await service.request('GET', `/checkout/${changed.checkoutId}`, { apiKey: siteKey })).body.Checkout.Status,
    ).toBe('BasketChanged');
    const refused = await complete(changed.checkoutId);
    expect(refused.status).toBe(409);
    expect(refused.body.Error.Code).toBe('BasketChanged');
    // Nothing changed: the basket is still there with both lines, and a new checkout of it completes.
    expect((await service.request('GET', `/basket/${changed.basketGuid}`, { token: alice })).body.Lines).toHaveLength(
      2,
    );
    const again = await service.request('POST', `/basket/${changed.basketGuid}/checkout`, { token: alice });
    expect((await complete((again.body.CheckoutUrl as string).split('/').pop() as string)).body.Order.OrderTotal).toBe(
      79.49,
    );

    const deleted = await checkedOutBasket([[photoBook, 1]]);
    await service.request('DELETE', `/basket/${deleted.basketGuid}`, { token: alice });
    expect((await complete(deleted.checkoutId)).status).toBe(409);

    // Checked out again unchanged: the same checkout. Changed and checked out again: the first is refused.
    const twice = await checkedOutBasket([[canvas, 2]]);
    const same = await service.request('POST', `/basket/${twice.basketGuid}/checkout`, { token: alice });
    expect((same.body.CheckoutUrl as string).split('/').pop()).toBe(twice.checkoutId);
    await service.request('POST', `/basket/${twice.basketGuid}/line`, {
      token: alice,
      json: { ProjectGuid: photoBook, Quantity: 1 },
    });
    const second = await service.request('POST', `/basket/${twice.basketGuid}/checkout`, { token: alice });
    expect((await complete((second.body.CheckoutUrl as string).split('/').pop() as string)).status).toBe(200);
    const other = await complete(twice.checkoutId);
    expect(other.status).toBe(409);
    expect(other.body.Error.Code).toBe('BasketChanged');
  });

  it('answers 404 for unknown checkouts and 400 for bad input', async () => {
    expect((await complete('f'.repeat(32))).status).toBe(404);
    expect((await service.request('GET', `/checkout/${'f'.repeat(32)}`, { apiKey: siteKey })).body.Error.Code).toBe(
      'CheckoutNotFound',
    );
    expect((await service.request('GET', '/checkout/not-an-id', { apiKey: siteKey })).status).toBe(400);
    const { checkoutId } = await checkedOutBasket([[photoBook, 1]]);
    for (const json of [{}, { PaymentReference: '' }, { PaymentReference: 'x'.repeat(201) }, { PaymentReference: 5 }]) {
      const response = await service.request('POST', `/checkout/${checkoutId}/complete`, { apiKey: siteKey, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.Error.Message).toContain('PaymentReference');
    }
    expect((await service.request('GET', `/checkout/${checkoutId}`, { apiKey: siteKey })).body.Checkout.Status).toBe(
      'Open',
    );
    const guid = (await complete(checkoutId)).body.Order.OrderGuid;
    expect((await setStatus(guid, 'Lost')).status).toBe(400);
    expect((await setStatus(MISSING, 'Processing')).status).toBe(404);
    expect((await service.request('GET', '/orders?projectguid=nope', { token: alice })).status).toBe(400);
  });

  it('takes the right credentials: bearer token for orders, site key for checkout, fulfilment key for status', async () => {
    const libraryKey = await service.apiKey('app', 'library');
    const { checkoutId } = await checkedOutBasket([[photoBook, 1]]);
    expect((await service.request('GET', '/orders')).status).toBe(401);
    expect((await service.request('GET', '/orders', { apiKey: siteKey })).status).toBe(403);
    expect((await service.request('GET', `/checkout/${checkoutId}`, { token: alice })).status).toBe(403);
    expect(
      (
        await service.request('POST', `/checkout/${checkoutId}/complete`, {
          apiKey: libraryKey,
          json: { PaymentReference: 'x' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await service.request('PUT', `/order/${MISSING}/status`, { token: alice, json: { Status: 'Processing' } }))
        .status,
    ).toBe(403);
  });

  it("keeps other users' orders invisible, answering 404 exactly as for a missing order", async () => {
    const project = await service.project(3.5);
    const { checkoutId } = await checkedOutBasket([[project, 1]], alice);
    const guid = (await complete(checkoutId)).body.Order.OrderGuid as string;
    const foreign = await service.request('GET', `/order/${guid}`, { token: bob });
    const missing = await service.request('GET', `/order/${MISSING}`, { token: bob });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body.Error.Code).toBe(missing.body.Error.Code);
    expect(await orderGuids(bob)).not.toContain(guid);
    expect(await orderGuids(bob, `?projectguid=${project}`)).toEqual([]);
    expect(await orderGuids(alice, `?projectguid=${project}`)).toEqual([guid]);
  });
});

describe('one transaction each', () => {
  /**
   * Installs a middleware that fails the route handlers' TransactWriteItems, before or after it reached
   * DynamoDB (those of functions fed in the background meanwhile go through).
   */
  async function crashAtCommit(when: 'before' | 'after'): Promise<() => void> {
    const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
    const name = `crash-${when}-commit`;
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand' || !inRouteHandler()) return next(args);
        if (when === 'after') await next(args);
        throw new Error(`simulated crash ${when} the commit`);
      },
      { step: 'initialize', name },
    );
    return () => dynamoDbClient.middlewareStack.remove(name);
  }

  inProcessIt(
    'completes all or nothing: a crash before or after the commit, then a retry, makes one order and one event',
    async () => {
      const project = await service.project(11);
      for (const when of ['before', 'after'] as const) {
        const { basketGuid, checkoutId } = await checkedOutBasket([
          [project, 1],
          [canvas, 2],
        ]);
        const removeCrash = await crashAtCommit(when);
        let first;
        try {
          first = await complete(checkoutId, 'psp-crash');
        } finally {
          removeCrash();
        }
        expect(first.status, when).toBe(500);
        const before = await orderGuids(alice, `?projectguid=${project}`);
        // Before the commit nothing was written; after it, everything.
        expect((await service.request('GET', `/basket/${basketGuid}`, { token: alice })).status).toBe(
          when === 'before' ? 200 : 404,
        );
        const retry = await complete(checkoutId, 'psp-crash');
        expect(retry.status, when).toBe(200);
        const guid = retry.body.Order.OrderGuid as string;
        expect(before.includes(guid), when).toBe(when === 'after');
        expect((await orderGuids(alice, `?projectguid=${project}`)).filter((g) => g === guid)).toHaveLength(1);
        expect((await orderGuids(alice, `?projectguid=${canvas}`)).filter((g) => g === guid)).toHaveLength(1);
        expect((await orderGuids(alice)).filter((g) => g === guid)).toHaveLength(1);
        expect((await service.request('GET', `/order/${guid}`, { token: alice })).body.OrderTotal).toBe(110);
        expect((await service.request('GET', `/basket/${basketGuid}`, { token: alice })).status).toBe(404);
        const created = (await events()).filter(
          (event) => event['detail-type'] === 'OrderCreated' && event.detail.OrderGuid === guid,
        );
        expect(created, when).toHaveLength(1);
        expect((await complete(checkoutId, 'psp-crash')).body.Order.OrderGuid).toBe(guid);
      }
    },
  );

  inProcessIt('changes a status with its copies and its event, all or nothing', async () => {
    const project = await service.project(2);
    const guid = (await complete((await checkedOutBasket([[project, 1]])).checkoutId)).body.Order.OrderGuid as string;
    const removeCrash = await crashAtCommit('before');
    try {
      expect((await setStatus(guid, 'Processing')).status).toBe(500);
    } finally {
      removeCrash();
    }
    expect((await service.request('GET', `/order/${guid}`, { token: alice })).body.Status).toBe('OrderReceived');
    expect(
      (await service.request('GET', `/orders?projectguid=${project}`, { token: alice })).body.Orders,
    ).toMatchObject([{ OrderGuid: guid, Status: 'OrderReceived' }]);
    expect(
      (await events()).filter(
        (event) => event.detail.OrderGuid === guid && event['detail-type'] === 'OrderStatusChanged',
      ),
    ).toEqual([]);
    expect((await setStatus(guid, 'Processing')).status).toBe(200);
    expect(
      (await service.request('GET', `/orders?projectguid=${project}`, { token: alice })).body.Orders,
    ).toMatchObject([{ OrderGuid: guid, Status: 'Processing' }]);
    // A repeat writes nothing: no second event.
    expect((await setStatus(guid, 'Processing')).status).toBe(200);
    expect((await events()).filter((event) => event.id === `OrderStatusChanged-${guid}-2`)).toHaveLength(1);
  });

  it('serializes concurrent status changes: each revision once, copies at the last, one event per revision', async () => {
    const projects = [await service.project(1), await service.project(2)];
    const guid = (
      await complete(
        (
          await checkedOutBasket([
            [projects[0]!, 1],
            [projects[1]!, 1],
          ])
        ).checkoutId,
      )
    ).body.Order.OrderGuid as string;
    // Processing and Cancelled race from OrderReceived; each request is sent 5 times at once.
    const answers = await Promise.all(
      ['Processing', 'Cancelled'].flatMap((status) => Array.from({ length: 5 }, () => setStatus(guid, status))),
    );
    expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
    const final = (await service.request('GET', `/order/${guid}`, { token: alice })).body;
    for (const project of projects) {
      const [copy] = (await service.request('GET', `/orders?projectguid=${project}`, { token: alice })).body.Orders;
      expect(copy).toMatchObject({ OrderGuid: guid, Status: final.Status, LastSavedDateUtc: final.LastSavedDateUtc });
    }
    const changes = (await events()).filter(
      (event) => event['detail-type'] === 'OrderStatusChanged' && event.detail.OrderGuid === guid,
    );
    const ordered = [...changes].sort((a, b) => (a.detail.Revision as number) - (b.detail.Revision as number));
    const path = ordered.map((event) => event.detail.To);
    // Processing then Cancelled is allowed, Cancelled then Processing is not; each revision is published once.
    expect([['Processing'], ['Cancelled'], ['Processing', 'Cancelled']]).toContainEqual(path);
    expect(ordered.map((event) => event.detail.Revision)).toEqual(path.map((_, index) => index + 2));
    expect(changes.at(-1)?.detail.To).toBe(final.Status);
  });

  inProcessIt(
    'completes the largest basket (MAX_LINES lines, as many projects) in one transaction',
    async () => {
      const { MAX_LINES } = await import('../../functions/domain/basket.ts');
      const projects = await Promise.all(Array.from({ length: MAX_LINES }, (_, i) => service.project(1 + i)));
      const basketGuid = (await service.request('POST', '/basket', { token: bob })).body.Guid as string;
      for (const project of projects) {
        const added = await service.request('POST', `/basket/${basketGuid}/line`, {
          token: bob,
          json: { ProjectGuid: project, Quantity: 1 },
        });
        expect(added.status).toBe(200);
      }
      const extra = await service.request('POST', `/basket/${basketGuid}/line`, {
        token: bob,
        json: { ProjectGuid: await service.project(9), Quantity: 1 },
      });
      expect(extra.body.Error.Code).toBe('BasketFull');
      const checkoutId = (
        (await service.request('POST', `/basket/${basketGuid}/checkout`, { token: bob })).body.CheckoutUrl as string
      )
        .split('/')
        .pop() as string;
      const recorded = await recordDynamoCalls(() => complete(checkoutId, 'psp-largest'));
      expect(recorded.result.status, recorded.result.text).toBe(200);
      expect(handlerCalls(recorded.calls)).toEqual(['GetItemCommand', 'TransactWriteItemsCommand']);
      const guid = recorded.result.body.Order.OrderGuid as string;
      for (const project of [projects[0]!, projects.at(-1)!])
        expect(await orderGuids(bob, `?projectguid=${project}`)).toEqual([guid]);
      const changed = await recordDynamoCalls(() => setStatus(guid, 'Processing'));
      expect(changed.result.status).toBe(200);
      expect(handlerCalls(changed.calls)).toEqual(['GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
      expect(
        (await service.request('GET', `/orders?projectguid=${projects.at(-1)}`, { token: bob })).body.Orders[0].Status,
      ).toBe('Processing');
    },
    120_000,
  );
});

describe('storage cost', () => {
  inProcessIt(
    'reads only the 3 matching orders of a user with 200 orders, in one Query',
    async () => {
      const { orderFromCheckout, orderGuidAt } = await import('../../functions/domain/order.ts');
      const store = await import('../../functions/store/order-store.ts');
      const { transact } = await import('../../functions/store/transaction.ts');
      const user = 'heavy-buyer';
      const token = await service.token(user);
      const target = await service.project(9.99);
      const others = [await service.project(1), await service.project(2)];
      const start = Date.now() - 1_000_000;
      const matching: string[] = [];
      for (let i = 0; i < 200; i++) {
        const projects = i % 70 === 5 ? [others[0]!, target] : [others[i % 2]!];
        const lines = projects.map((projectGuid, index) => ({
          id: index + 1,
          projectGuid,
          quantity: 1,
          unitPriceMinor: 100,
          projectVersion: 1,
        }));
        const order = orderFromCheckout(
          { userId: user, basketGuid: randomBytes(16).toString('hex'), lines, totalMinor: 100 * lines.length },
          {
            orderGuid: orderGuidAt(start + i, randomBytes(10)),
            paymentReference: `seed-${i}`,
            createdAt: start + i,
          },
        );
        await transact(store.createOrderActions(order));
        if (projects.includes(target)) matching.unshift(order.orderGuid);
      }
      expect(matching).toHaveLength(3);

      const filtered = await recordDynamoCalls(() =>
        service.request('GET', `/orders?projectguid=${target}`, { token }),
      );
      expect(filtered.result.status).toBe(200);
      expect((filtered.result.body.Orders as { OrderGuid: string }[]).map((o) => o.OrderGuid)).toEqual(matching);
      expect(filtered.calls).toMatchObject([{ command: 'QueryCommand', scanned: 3 }]);

      const all = await recordDynamoCalls(() => service.request('GET', '/orders', { token }));
      expect(all.result.body.Orders).toHaveLength(200);
      expect(all.calls).toMatchObject([{ command: 'QueryCommand', scanned: 200 }]);

      const single = await recordDynamoCalls(() => service.request('GET', `/order/${matching[0]}`, { token }));
      expect(single.calls).toMatchObject([{ command: 'GetItemCommand' }]);
    },
    60_000,
  );
});
