import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessIt } from '../support/bundles.ts';
import { inRouteHandler } from '../support/running-function.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let alice: string;
let bob: string;
let photoBook: string;
let canvas: string;

beforeAll(async () => {
  service = await startTestService();
  alice = await service.token('alice');
  bob = await service.token('bob');
  photoBook = await service.project(29.99);
  canvas = await service.project(49.5);
});
afterAll(() => service?.close());

const DATE = /^\/Date\(\d+\)\/$/;

async function newBasket(token = alice): Promise<string> {
  const response = await service.request('POST', '/basket', { token });
  expect(response.status).toBe(200);
  return response.body.Guid;
}

describe('basket API', () => {
  it('creates an empty basket in the contract form', async () => {
    const response = await service.request('POST', '/basket', { token: alice });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.body).toEqual({
      Guid: expect.stringMatching(/^[0-9a-f]{32}$/),
      Lines: [],
      OrderTotal: 0,
      CreatedDateUtc: expect.stringMatching(DATE),
      LastSavedDateUtc: expect.stringMatching(DATE),
    });
    expect(response.text).toMatch(/"CreatedDateUtc":"\\\/Date\(\d+\)\\\/"/);
  });

  it('adds, merges, changes and deletes lines with exact totals', async () => {
    const guid = await newBasket();
    const added = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: photoBook, Quantity: 1 },
    });
    expect(added.status).toBe(200);
    expect(added.body.Line).toEqual({ Id: 1, ProjectGuid: photoBook, Quantity: 1, Total: 29.99 });

    const merged = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: photoBook, Quantity: 6 },
    });
    expect(merged.body.Line).toEqual({ Id: 1, ProjectGuid: photoBook, Quantity: 7, Total: 209.93 });
    expect(merged.body.Basket.Lines).toHaveLength(1);

    const second = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: canvas, Quantity: 2 },
    });
    expect(second.body.Line.Id).toBe(2);
    expect(second.body.Basket.OrderTotal).toBe(308.93);

    const changed = await service.request('PUT', `/basket/${guid}/line/2`, {
      token: alice,
      json: { ProjectGuid: canvas, Quantity: 1 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.Line).toEqual({ Id: 2, ProjectGuid: canvas, Quantity: 1, Total: 49.5 });
    expect(changed.body.Basket.OrderTotal).toBe(259.43);

    const deleted = await service.request('DELETE', `/basket/${guid}/line/1`, { token: alice });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ Basket: expect.objectContaining({ Guid: guid, OrderTotal: 49.5 }) });
    expect(deleted.body.Line).toBeUndefined();

    const readded = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: photoBook, Quantity: 1 },
    });
    expect(readded.body.Line.Id).toBe(3);

    const read = await service.request('GET', `/basket/${guid}`, { token: alice });
    expect(read.body.Lines.map((line: { Id: number }) => line.Id)).toEqual([2, 3]);
    expect(read.body.OrderTotal).toBe(79.49);
  });

  it("lists only the user's baskets and hides other users' baskets as missing", async () => {
    const mine = await newBasket(alice);
    const theirs = await newBasket(bob);
    const list = await service.request('GET', '/baskets', { token: alice });
    const guids = list.body.Baskets.map((basket: { Guid: string }) => basket.Guid);
    expect(guids).toContain(mine);
    expect(guids).not.toContain(theirs);

    const foreign = await service.request('GET', `/basket/${theirs}`, { token: alice });
    const missing = await service.request('GET', `/basket/${'0'.repeat(32)}`, { token: alice });
    expect(foreign.status).toBe(404);
    expect(foreign.body.Error.Code).toBe('BasketNotFound');
    expect(missing.status).toBe(404);
    expect(foreign.body.Error.Code).toBe(missing.body.Error.Code);
  });

  it('deletes a basket', async () => {
    const guid = await newBasket();
    expect((await service.request('DELETE', `/basket/${guid}`, { token: alice })).status).toBe(200);
    expect((await service.request('GET', `/basket/${guid}`, { token: alice })).status).toBe(404);
    expect((await service.request('DELETE', `/basket/${guid}`, { token: alice })).status).toBe(404);
  });

  it('answers a checkout URL on the checkout site and refuses an empty basket', async () => {
    const guid = await newBasket();
    const empty = await service.request('POST', `/basket/${guid}/checkout`, { token: alice });
    expect(empty.status).toBe(409);
    expect(empty.body.Error.Code).toBe('BasketEmpty');
    await service.request('POST', `/basket/${guid}/line`, { token: alice, json: { ProjectGuid: canvas, Quantity: 1 } });
    const checkout = await service.request('POST', `/basket/${guid}/checkout`, { token: alice });
    expect(checkout.status).toBe(200);
    expect(checkout.body.BasketGuid).toBe(guid);
    expect(checkout.body.CheckoutUrl).toMatch(/^http:\/\/127\.0\.0\.1:3001\/checkout\/[0-9a-f]{32}$/);
  });

  it('refuses bad input with a 400 naming the field, and changes nothing', async () => {
    const guid = await newBasket();
    const cases: [unknown, string][] = [
      [{ ProjectGuid: photoBook, Quantity: 0 }, 'Quantity'],
      [{ ProjectGuid: photoBook, Quantity: 1000 }, 'Quantity'],
      [{ ProjectGuid: photoBook, Quantity: 1.5 }, 'Quantity'],
      [{ ProjectGuid: photoBook, Quantity: '2' }, 'Quantity'],
      [{ ProjectGuid: 'nope', Quantity: 1 }, 'ProjectGuid'],
      [{ Quantity: 1 }, 'ProjectGuid'],
    ];
    for (const [json, field] of cases) {
      const response = await service.request('POST', `/basket/${guid}/line`, { token: alice, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.Error.Message).toContain(field);
    }
    const badJson = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      body: '{"ProjectGuid":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(badJson.status).toBe(400);
    expect(badJson.body.Error.Code).toBe('InvalidJson');
    const unknown = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: 'f'.repeat(32), Quantity: 1 },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.Error.Code).toBe('UnknownProject');

    const read = await service.request('GET', `/basket/${guid}`, { token: alice });
    expect(read.body.Lines).toEqual([]);
    expect(read.body.LastSavedDateUtc).toBe(read.body.CreatedDateUtc);
  });

  it('enforces the quantity and line limits as conflicts', async () => {
    const guid = await newBasket();
    await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: photoBook, Quantity: 999 },
    });
    const over = await service.request('POST', `/basket/${guid}/line`, {
      token: alice,
      json: { ProjectGuid: photoBook, Quantity: 1 },
    });
    expect(over.status).toBe(409);
    expect(over.body.Error.Code).toBe('QuantityLimitExceeded');
  });

  it('lands 50 concurrent line additions to one basket with an exact total', { timeout: 120_000 }, async () => {
    const guid = await newBasket();
    const projects = await Promise.all(Array.from({ length: 50 }, (_, i) => service.project((100 + i) / 100)));
    const responses = await Promise.all(
      projects.map((ProjectGuid) =>
        service.request('POST', `/basket/${guid}/line`, { token: alice, json: { ProjectGuid, Quantity: 3 } }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    const basket = (await service.request('GET', `/basket/${guid}`, { token: alice })).body;
    expect(basket.Lines).toHaveLength(50);
    expect(new Set(basket.Lines.map((line: { Id: number }) => line.Id)).size).toBe(50);
    const expectedMinor = projects.reduce((sum, _, i) => sum + 3 * (100 + i), 0);
    expect(Math.round(basket.OrderTotal * 100)).toBe(expectedMinor);
  });

  it('never corrupts the total under concurrent changes of one line', async () => {
    const guid = await newBasket();
    await service.request('POST', `/basket/${guid}/line`, { token: alice, json: { ProjectGuid: canvas, Quantity: 1 } });
    const quantities = Array.from({ length: 20 }, (_, i) => i + 1);
    const responses = await Promise.all(
      quantities.map((Quantity) =>
        service.request('PUT', `/basket/${guid}/line/1`, { token: alice, json: { ProjectGuid: canvas, Quantity } }),
      ),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const basket = (await service.request('GET', `/basket/${guid}`, { token: alice })).body;
    expect(basket.Lines).toHaveLength(1);
    expect(basket.OrderTotal).toBeCloseTo(basket.Lines[0].Quantity * 49.5, 6);
  });
});

describe('storage cost', () => {
  inProcessIt(
    'reads a basket with one GetItem, lists with one Query, changes a line with one BatchGet and one Put',
    async () => {
      const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
      const calls: string[] = [];
      const name = 'count-calls';
      dynamoDbClient.middlewareStack.add(
        (next, context) => async (args) => {
          if (inRouteHandler()) calls.push(context.commandName as string);
          return next(args);
        },
        { step: 'initialize', name },
      );
      try {
        const guid = await newBasket();
        calls.length = 0;
        await service.request('GET', `/basket/${guid}`, { token: alice });
        expect(calls).toEqual(['GetItemCommand']);
        calls.length = 0;
        await service.request('GET', '/baskets', { token: alice });
        expect(calls).toEqual(['QueryCommand']);
        calls.length = 0;
        await service.request('POST', `/basket/${guid}/line`, {
          token: alice,
          json: { ProjectGuid: canvas, Quantity: 1 },
        });
        expect(calls).toEqual(['BatchGetItemCommand', 'PutItemCommand']);
      } finally {
        dynamoDbClient.middlewareStack.remove(name);
      }
    },
  );
});

describe('credentials', () => {
  it('answers 401 without or with a bad token, 403 for the wrong credential kind', async () => {
    expect((await service.request('GET', '/baskets')).status).toBe(401);
    expect((await service.request('GET', '/baskets', { token: 'not.a.jwt' })).status).toBe(401);
    const expired = await service.token('alice', { ttlSeconds: -120 });
    expect((await service.request('GET', '/baskets', { token: expired })).status).toBe(401);
    const libraryKey = await service.apiKey('app', 'library');
    const forbidden = await service.request('GET', '/baskets', { apiKey: libraryKey });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.Error.Code).toBe('Forbidden');
    expect(
      (
        await service.request('PUT', `/project/${'a'.repeat(32)}`, {
          apiKey: libraryKey,
          json: { UnitPrice: 1, Version: 1 },
        })
      ).status,
    ).toBe(403);
    expect((await service.request('GET', '/health')).status).toBe(200);
  });
});
