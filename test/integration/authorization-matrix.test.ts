/**
 * Who gets in: every route of the route table against every kind of credential. Each cell's expected
 * answer follows from the route's credential kind: 401 for a missing or invalid credential, 403 for a
 * valid one of the wrong kind, and otherwise an answer that is neither (the sample request may be
 * refused as 400 or 404, never 401, 403 or 5xx). A route without a sample here fails the test, so a
 * route added later has to be placed in the matrix. Another user's resources answer like missing ones.
 */
import { readFileSync } from 'node:fs';
import { generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type RequestOptions, type TestService } from '../support/service.ts';
import { routes, type Route } from '../../functions/routes.ts';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../functions/auth/principal.ts';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '../../lib/local/signing-keys.ts';
import {
  AUTHORIZATION_COLUMNS as columns,
  expectedAnswer as expected,
  forbiddenWords,
  REFUSAL_WORDS,
  type MatrixColumn as Column,
} from '../../lib/authorization-matrix.ts';

/** The request each route gets. `body`: sent as JSON unless `raw`. Path parameters not named are random. */
interface Sample {
  json?: unknown;
  raw?: { body: string; contentType: string };
  /** Appended to the path. */
  query?: string;
}

let photoBook = '';

/** Bodies are valid where that lets the request reach its resource (so a cross-user call meets the basket). */
const samples: Record<string, Sample> = {
  'GET /health': {},
  'GET /openapi.json': {},
  'POST /basket': {},
  'GET /baskets': {},
  'GET /basket/{basketGuid}': {},
  'DELETE /basket/{basketGuid}': {},
  'POST /basket/{basketGuid}/line': {
    get json() {
      return { ProjectGuid: photoBook, Quantity: 1 };
    },
  },
  'PUT /basket/{basketGuid}/line/{lineId}': {
    get json() {
      return { ProjectGuid: photoBook, Quantity: 2 };
    },
  },
  'DELETE /basket/{basketGuid}/line/{lineId}': {},
  'POST /basket/{basketGuid}/checkout': {},
  'PUT /project/{projectGuid}': { json: { UnitPrice: 'not a price' } },
  'GET /project/{projectGuid}': {},
  'GET /checkout/{checkoutId}': {},
  'POST /checkout/{checkoutId}/complete': { json: { PaymentReference: 'matrix' } },
  'GET /orders': {},
  'GET /order/{orderGuid}': {},
  'GET /order/{orderGuid}/artwork': {},
  // A DownloadLink long expired: 410 whatever credential comes with it (a credential is never looked at).
  'GET /order/{orderGuid}/artwork/{itemGuid}': { query: '?line=1&expires=1&signature=x' },
  'PUT /order/{orderGuid}/status': { json: { Status: 'not a status' } },
  'POST /order/{orderGuid}/cancel': {},
  'POST /library/push': { raw: { body: '--x--\r\n', contentType: 'multipart/form-data; boundary=x' } },
  'POST /library/pull': { json: {} },
  'POST /library/multi/push': { raw: { body: '--x--\r\n', contentType: 'multipart/form-data; boundary=x' } },
  'POST /library/multi/pull': { json: {} },
  'POST /library/{itemGuid}/builder': {},
  'POST /library/builder': { json: { Guids: [] } },
  'POST /library/upload': { json: {} },
  'POST /library/upload/{itemGuid}/complete': {},
  'POST /library/uploads': { json: {} },
  'POST /library/uploads/{itemGuid}/parts': { json: { PartNumbers: [1] } },
  'GET /library/uploads/{itemGuid}': {},
  'POST /library/uploads/{itemGuid}/complete': { json: { Parts: [{ PartNumber: 1, ETag: 'x' }] } },
  'DELETE /library/uploads/{itemGuid}': {},
  'GET /library/{itemGuid}': {},
  'GET /builder/{token}': {},
  'POST /library/claim': { json: { ProductBuilderUrl: 'not a builder URL' } },
  'GET /library': {},
  'DELETE /library/{itemGuid}': {},
  'POST /webhooks': { json: {} },
  'GET /webhooks': {},
  'GET /webhooks/{webhookId}': {},
  'PUT /webhooks/{webhookId}': { json: { Status: 'Disabled' } },
  'DELETE /webhooks/{webhookId}': {},
  'POST /webhooks/{webhookId}/secret': {},
  'GET /webhooks/{webhookId}/deliveries': {},
  'POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver': {},
};

let service: TestService;
const credentials = {} as Record<Column, RequestOptions>;
/** Alice owns these; the "another user" column (Bob) aims at them. */
const owned: Record<string, string> = {};
let basketBefore = '';
const randomGuid = () => crypto.randomUUID().replaceAll('-', '');

beforeAll(async () => {
  service = await startTestService();
  const { createApiKey, revokeApiKey } = await import('../../functions/store/api-key-store.ts');
  const alice = await service.token('matrix-alice');
  const bob = await service.token('matrix-bob');
  const libraryKey = await service.apiKey('matrix-library', 'library');
  const siteKey = await service.apiKey('matrix-site', 'site');
  const catalogKey = await service.apiKey('matrix-catalog', 'catalog');
  const fulfilmentKey = await service.apiKey('matrix-fulfilment', 'fulfilment');
  const revoked = await createApiKey(`matrix-revoked-${randomGuid()}`, 'catalog', Date.now());
  expect((await service.request('GET', `/project/${randomGuid()}`, { apiKey: revoked.apiKey })).status).toBe(404);
  await revokeApiKey(revoked.record.name);
  // A key stored before `internal` was split, as a deployed table may still hold: it opens nothing.
  const retired = await createApiKey(`matrix-retired-${randomGuid()}`, 'internal' as ApiKeyScope, Date.now());

  const { privateKey: foreignKey } = await generateKeyPair('ES256');
  const forged = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'local-1', typ: 'JWT' })
    .setSubject('matrix-alice')
    .setIssuer(LOCAL_ISSUER)
    .setAudience(LOCAL_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(foreignKey);
  // Signed by the local issuer and for this API, but valid forever: refused since exp is required.
  const issuerKey = await importJWK(JSON.parse(readFileSync(service.keys.privateKeyFile, 'utf8')) as JWK, 'ES256');
  const endless = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'local-1', typ: 'JWT' })
    .setSubject('matrix-alice')
    .setIssuer(LOCAL_ISSUER)
    .setAudience(LOCAL_AUDIENCE)
    .setIssuedAt()
    .sign(issuerKey);

  Object.assign(credentials, {
    none: {},
    'malformed token': { token: 'not.a.jwt' },
    'malformed API key': { apiKey: 'not-a-key' },
    'expired token': { token: await service.token('matrix-alice', { ttlSeconds: -600 }) },
    'token signed by another key': { token: forged },
    'token of another issuer': { token: await service.token('matrix-alice', { issuer: 'https://issuer.example.com' }) },
    'token for another audience': { token: await service.token('matrix-alice', { audience: 'another-api' }) },
    'token without exp': { token: endless },
    "the owner's token": { token: alice },
    "another user's token": { token: bob },
    'library key': { apiKey: libraryKey },
    'site key': { apiKey: siteKey },
    'catalog key': { apiKey: catalogKey },
    'fulfilment key': { apiKey: fulfilmentKey },
    'key of the retired internal scope': { apiKey: retired.apiKey },
    'revoked key': { apiKey: revoked.apiKey },
  } satisfies Record<Column, RequestOptions>);

  // Alice's order (from a checked-out basket) and an open basket with one line.
  photoBook = await service.project(29.99);
  const ordered = (await service.request('POST', '/basket', { token: alice })).body.Guid;
  await service.request('POST', `/basket/${ordered}/line`, {
    token: alice,
    json: { ProjectGuid: photoBook, Quantity: 1 },
  });
  const checkout = await service.request('POST', `/basket/${ordered}/checkout`, { token: alice });
  const checkoutId = (checkout.body.CheckoutUrl as string).split('/').pop() as string;
  const completed = await service.request('POST', `/checkout/${checkoutId}/complete`, {
    apiKey: siteKey,
    json: { PaymentReference: 'matrix-pay' },
  });
  expect(completed.status).toBe(200);
  owned.orderGuid = completed.body.Order.OrderGuid;
  owned.basketGuid = (await service.request('POST', '/basket', { token: alice })).body.Guid;
  owned.lineId = '1';
  await service.request('POST', `/basket/${owned.basketGuid}/line`, {
    token: alice,
    json: { ProjectGuid: photoBook, Quantity: 1 },
  });
  basketBefore = (await service.request('GET', `/basket/${owned.basketGuid}`, { token: alice })).text;

  // An image in Alice's library (pushed with the library key, claimed with her token).
  const form = new FormData();
  form.append(
    'image',
    new Blob([
      Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
        'base64',
      ),
    ]),
    'a.png',
  );
  const pushed = (await (
    await fetch(`${service.url}/library/push`, {
      method: 'POST',
      headers: { 'X-SERVICE-API-Key': libraryKey },
      body: form,
    })
  ).json()) as { LibraryItem: { ItemGuid: string }; ProductBuilderUrl: string };
  expect(
    (
      await service.request('POST', '/library/claim', {
        token: alice,
        json: { ProductBuilderUrl: pushed.ProductBuilderUrl },
      })
    ).status,
  ).toBe(200);
  owned.itemGuid = pushed.LibraryItem.ItemGuid;
});
afterAll(() => service?.close());

const routeKey = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** Fills path parameters: Alice's resources for the cross-user column, random (missing) ones otherwise. */
function pathFor(route: Route, ownedBy: 'alice' | 'nobody'): string {
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (ownedBy === 'alice' && owned[name]) return owned[name]!;
    return name === 'lineId' ? '1' : randomGuid();
  });
}

async function send(route: Route, column: Column, path: string) {
  const sample = samples[routeKey(route)] ?? {};
  const options: RequestOptions = { ...credentials[column] };
  if (sample.raw)
    Object.assign(options, { body: sample.raw.body, headers: { 'Content-Type': sample.raw.contentType } });
  else if (sample.json !== undefined) options.json = sample.json;
  return service.request(route.method, `${path}${sample.query ?? ''}`, options);
}

describe('authorization matrix', () => {
  it('has a sample request for every route of the route table, and none for routes that do not exist', () => {
    expect(Object.keys(samples).sort()).toEqual(routes.map(routeKey).sort());
  });

  for (const route of routes) {
    it(`${routeKey(route)} (${route.credential})`, async () => {
      const cells: string[] = [];
      for (const column of columns) {
        const response = await send(
          route,
          column,
          pathFor(route, column === "another user's token" ? 'alice' : 'nobody'),
        );
        const want = expected(route, column);
        const ok =
          want === 'in'
            ? response.status !== 401 && response.status !== 403 && response.status < 500
            : response.status === want;
        if (!ok) cells.push(`${column}: expected ${want}, got ${response.status} ${response.text.slice(0, 200)}`);
        if (want === 401 && ok)
          expect(response.body, column).toEqual({
            Error: { Code: 'Unauthorized', Message: expect.stringContaining(REFUSAL_WORDS[column] as string) },
          });
        if (want === 403 && ok)
          expect(response.body, column).toEqual({
            Error: { Code: 'Forbidden', Message: expect.stringContaining(forbiddenWords(route)) },
          });
        if (want === 'in' && ok && response.status >= 400)
          expect(response.body?.Error?.Code, `${column}: JSON error body`).toEqual(expect.any(String));
      }
      expect(cells).toEqual([]);
    });
  }
});

describe('what a site key cannot do (the attacks of a leaked checkout-site key)', () => {
  it('cannot price a project at 0 with an unreachable version: 403, and the price and version stay', async () => {
    const before = await service.request('GET', `/project/${photoBook}`, credentials['catalog key']);
    const attack = await service.request('PUT', `/project/${photoBook}`, {
      ...credentials['site key'],
      json: { UnitPrice: 0, Version: 2147483647 },
    });
    expect(attack.status).toBe(403);
    expect(attack.body.Error.Code).toBe('Forbidden');
    expect((await service.request('GET', `/project/${photoBook}`, credentials['catalog key'])).text).toBe(before.text);
  });

  it("cannot move an order's status: 403, and the order stays as it was", async () => {
    const attack = await service.request('PUT', `/order/${owned.orderGuid}/status`, {
      ...credentials['site key'],
      json: { Status: 'Cancelled' },
    });
    expect(attack.status).toBe(403);
    const order = await service.request('GET', `/order/${owned.orderGuid}`, credentials["the owner's token"]);
    expect(order.body.Status).toBe('OrderReceived');
  });
});

describe('docs/security.md', () => {
  it("lists each scope's routes exactly as the route table has them", () => {
    const text = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const section = text.split('## API key scopes: who holds which')[1]!.split('\n## ')[0]!;
    for (const scope of API_KEY_SCOPES) {
      const row = section.split('\n').find((line) => line.startsWith(`| \`${scope}\` |`));
      expect(row, scope).toBeDefined();
      const documented = [...row!.split('|')[2]!.matchAll(/`([A-Z]+ \/[^`]*)`/g)].map((match) => match[1]).sort();
      const table = routes
        .filter((route) => route.credential === scope)
        .map(routeKey)
        .sort();
      expect(documented, scope).toEqual(table);
    }
  });
});

describe("another user's resources", () => {
  /** User routes that name a resource: Bob's call on Alice's resource must look exactly like a call on a missing one. */
  const resourceRoutes = routes.filter((route) => route.credential === 'user' && route.path.includes('{'));

  it('covers the basket, order and library routes', () => {
    expect(resourceRoutes.map(routeKey)).toEqual(
      expect.arrayContaining(['GET /basket/{basketGuid}', 'GET /order/{orderGuid}', 'DELETE /library/{itemGuid}']),
    );
  });

  for (const route of resourceRoutes) {
    it(`${routeKey(route)}: answers Bob for Alice's resource exactly as for a missing one`, async () => {
      const foreignPath = pathFor(route, 'alice');
      const missingPath = pathFor(route, 'nobody');
      const foreign = await send(route, "another user's token", foreignPath);
      const missing = await send(route, "another user's token", missingPath);
      expect(foreign.status).toBe(404);
      const neutral = (text: string, path: string) =>
        path
          .split('/')
          .reduce((result, segment) => (segment.length >= 16 ? result.replaceAll(segment, '<id>') : result), text);
      expect(neutral(foreign.text, foreignPath)).toBe(neutral(missing.text, missingPath));
    });
  }

  it("left Alice's basket and order as they were", async () => {
    const alice = credentials["the owner's token"];
    const basket = await service.request('GET', `/basket/${owned.basketGuid}`, alice);
    expect(basket.status).toBe(200);
    expect(basket.body.Lines).toEqual([expect.objectContaining({ Id: 1, Quantity: 1 })]);
    expect(basket.text).toBe(basketBefore);
    const order = await service.request('GET', `/order/${owned.orderGuid}`, alice);
    expect(order.status).toBe(200);
    expect(order.body.OrderGuid).toBe(owned.orderGuid);
    const library = await service.request('GET', '/library', alice);
    expect(library.body.LibraryItems.map((item: { ItemGuid: string }) => item.ItemGuid)).toEqual([owned.itemGuid]);
  });
});
