/**
 * Bad input is harmless: property-based tests (fast-check) over every JSON route of the route table, with
 * the route's right credential so the requests reach the handler. Random and adversarial path segments,
 * query strings, headers and bodies (wrong types, huge numbers, deep nesting, invalid UTF-8, duplicate keys,
 * prototype-pollution keys, oversized bodies). Every answer is a 4xx JSON error or a success that matches
 * the route's response contract; never a 5xx, never a hang; and after every refused request the store
 * (every table item and every S3 object) is exactly as it was.
 *
 * The routes come from functions/routes.ts: a JSON route added later is covered without editing this file
 * (multipart routes have their own abuse tests; a route whose handler is not written yet is skipped).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { routes, type Route } from '../../functions/routes.ts';
import { API_KEY_SCOPES } from '../../functions/auth/principal.ts';
import { contracts } from '../../functions/contracts/registry.ts';
import { errorCodesOf } from '../../functions/contracts/openapi-errors.ts';
import { MAX_REQUEST_BYTES } from '../../lib/local/service.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { routeExists, snapshotStore, storeDiff, type StoreSnapshot } from '../support/store-snapshot.ts';
import { multipartBody, tinyPng } from '../support/multipart.ts';
import { parseJsonOrUndefined } from '../support/json.ts';

/** Runs per route; NUM_RUNS=200 for a deeper local run. Sized so the file stays well under a minute on 2 cores. */
const NUM_RUNS = Number(process.env.NUM_RUNS ?? 15);
/** A fixed seed keeps the suite reproducible; PROPERTY_SEED=<n> (or a random one) explores further. */
const SEED = Number(process.env.PROPERTY_SEED ?? 20261121);
const REQUEST_TIMEOUT_MS = 20_000;

/** PROPERTY_ROUTES=add-basket-line,put-project narrows a local run to those handlers. */
const onlyHandlers = process.env.PROPERTY_ROUTES?.split(',');
const jsonRoutes = routes.filter(
  (route) =>
    routeExists(route.handler) &&
    contracts[route.handler]?.requestContentType === undefined &&
    (!onlyHandlers || onlyHandlers.includes(route.handler)),
);
const bodyRoutes = jsonRoutes.filter((route) => route.method !== 'GET');

let service: TestService;
const credentials: Partial<Record<Route['credential'], Record<string, string>>> = { none: {} };
/** Known-good values per path parameter name, refreshed per route (a success may delete a basket). */
let fixtures: Record<string, string[]> = {};
let snapshot: StoreSnapshot;

beforeAll(async () => {
  // Every route's fixtures open baskets for one user: far more than the open-basket quota, which has its own test.
  service = await startTestService({ env: { MAX_OPEN_BASKETS_PER_USER: '100000' } });
  credentials.user = { Authorization: `Bearer ${await service.token('prop-user')}` };
  for (const scope of API_KEY_SCOPES)
    credentials[scope] = { 'X-SERVICE-API-Key': await service.apiKey(`prop-${scope}`, scope) };
  // Routes that take a key of any scope (webhooks): the fulfilment key's.
  credentials.apiKey = credentials.fulfilment;
});
afterAll(() => service?.close());

async function call(method: string, path: string, headers: Record<string, string>, body?: string | Uint8Array) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
    json: parseJsonOrUndefined(text),
  };
}

/** Creates what the route's path parameters can point at: a project, a basket with a line, a checkout, an order, an item. */
async function freshFixtures(): Promise<Record<string, string[]>> {
  const user = credentials.user as Record<string, string>;
  const site = credentials.site as Record<string, string>;
  const json = { ...user, 'Content-Type': 'application/json' };
  const project = await service.project(4.25, 3);
  const basket = (await call('POST', '/basket', user)).json.Guid as string;
  await call('POST', `/basket/${basket}/line`, json, JSON.stringify({ ProjectGuid: project, Quantity: 2 }));
  const checkoutBasket = (await call('POST', '/basket', user)).json.Guid as string;
  await call('POST', `/basket/${checkoutBasket}/line`, json, JSON.stringify({ ProjectGuid: project, Quantity: 1 }));
  const checkoutUrl = (await call('POST', `/basket/${checkoutBasket}/checkout`, user)).json?.CheckoutUrl as
    string | undefined;
  const checkout = checkoutUrl?.split('/').pop() ?? '0'.repeat(32);
  const values: Record<string, string[]> = {
    projectGuid: [project],
    basketGuid: [basket],
    lineId: ['1'],
    checkoutId: [checkout],
  };

  if (routeExists('complete-checkout')) {
    const orderBasket = (await call('POST', '/basket', user)).json.Guid as string;
    await call('POST', `/basket/${orderBasket}/line`, json, JSON.stringify({ ProjectGuid: project, Quantity: 1 }));
    const orderCheckout = (await call('POST', `/basket/${orderBasket}/checkout`, user)).json.CheckoutUrl.split(
      '/',
    ).pop();
    const completed = await call(
      'POST',
      `/checkout/${orderCheckout}/complete`,
      { ...site, 'Content-Type': 'application/json' },
      JSON.stringify({ PaymentReference: 'fixture' }),
    );
    if (completed.json?.Order?.OrderGuid) values.orderGuid = [completed.json.Order.OrderGuid];
  }
  if (routeExists('push-library-item')) {
    const { body, contentType } = multipartBody([
      { name: 'image', filename: 'fixture.png', contentType: 'image/png', data: tinyPng() },
    ]);
    const pushed = await call(
      'POST',
      '/library/push',
      { ...(credentials.library as Record<string, string>), 'Content-Type': contentType },
      body,
    );
    if (pushed.json?.LibraryItem?.ItemGuid) values.itemGuid = [pushed.json.LibraryItem.ItemGuid];
  }
  return values;
}

const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
const printable = (maxLength: number) => fc.string({ maxLength });

/** Path segments meant to trip decoding, normalisation, key building and number parsing. */
const adversarialSegments = [
  '..',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  '%00',
  '%ff',
  '%',
  '%zz',
  '%C0%AF',
  '%ED%A0%80',
  ' ',
  '%20',
  '+',
  '-1',
  '0',
  '1.5',
  '1e3',
  '0x10',
  '99999999999',
  '9'.repeat(400),
  'A'.repeat(3000),
  'null',
  'undefined',
  'NaN',
  '__proto__',
  'constructor',
  'USER%23alice',
  'BASKET%23x',
  '%3Cscript%3E',
  "'%20OR%201=1--",
  '%F0%9F%98%80',
  '%E0%A5%A7',
  '00000000-0000-0000-0000-000000000000',
  '{basketGuid}',
];

function segmentArb(name: string): fc.Arbitrary<string> {
  const known = fixtures[name] ?? [];
  const variants = known.flatMap((value) => [
    value,
    value.toUpperCase(),
    /^[0-9a-f]{32}$/.test(value)
      ? `${value.slice(0, 8)}-${value.slice(8, 12)}-${value.slice(12, 16)}-${value.slice(16, 20)}-${value.slice(20)}`
      : value,
  ]);
  return fc.oneof(
    { arbitrary: fc.constantFrom(...(variants.length > 0 ? variants : ['1'])), weight: 8 },
    { arbitrary: hex(32), weight: 1 },
    { arbitrary: fc.oneof(hex(31), hex(33), hex(36)), weight: 1 },
    { arbitrary: fc.constantFrom(...adversarialSegments), weight: 3 },
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map(encodeURIComponent), weight: 2 },
    { arbitrary: fc.integer({ min: -5, max: 2 ** 40 }).map(String), weight: 1 },
  );
}

function pathArb(route: Route): fc.Arbitrary<string> {
  const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  return fc.tuple(...names.map(segmentArb)).map((values) => {
    let index = 0;
    return route.path.replace(/\{[^}]+\}/g, () => values[index++] as string);
  });
}

const queryArb = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          'projectguid',
          'ProjectGuid',
          'projectGuid',
          'limit',
          'next',
          '__proto__',
          'constructor[prototype]',
          'a[]',
        ),
        printable(12),
      ),
      fc.oneof(
        fc.constantFrom('', '1', '-1', '1e400', 'true', 'null', '%', '%ff'),
        hex(32),
        printable(30),
        fc.constant('x'.repeat(5000)),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) =>
    pairs.length === 0
      ? ''
      : `?${pairs.map(([key, value]) => `${encodeURIComponent(key)}=${value.includes('%') ? value : encodeURIComponent(value)}`).join('&')}`,
  );

/** Headers other than the credential: content types, encodings, overrides, junk. */
const headersArb = fc
  .record(
    {
      'Content-Type': fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=xyz',
        'multipart/form-data',
        'application/octet-stream',
        'image/png',
        'application/json, text/html',
        '*/*',
        '',
      ),
      Accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
      'Content-Encoding': fc.constantFrom('gzip', 'br', 'identity', 'x-unknown'),
      'X-HTTP-Method-Override': fc.constantFrom('DELETE', 'PUT', 'GET'),
      Origin: fc.constantFrom('http://127.0.0.1:1', 'null', 'https://evil.invalid'),
      'Idempotency-Key': fc.oneof(printable(300), hex(32)),
      'X-Forwarded-For': fc.constantFrom('127.0.0.1', '::1', 'garbage'),
    },
    { requiredKeys: [] },
  )
  .chain((fixed) =>
    fc
      .dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), fc.stringMatching(/^[\x20-\x7e]{0,200}$/), { maxKeys: 3 })
      .map((junk) => ({ ...junk, ...fixed })),
  );

/** Values that are plausible, edge or wrong for any field; fixtures make some requests valid. */
function fieldValueArb(): fc.Arbitrary<unknown> {
  const knownGuids = Object.values(fixtures)
    .flat()
    .filter((value) => /^[0-9a-f]{32}$/.test(value));
  return fc.oneof(
    {
      arbitrary: fc.constantFrom(
        ...knownGuids,
        'Processing',
        'OrderReceived',
        'Shipped',
        'Cancelled',
        'Completed',
        'ref-1',
        'http://127.0.0.1:1/image.png',
      ),
      weight: 4,
    },
    {
      arbitrary: fc.constantFrom(
        1,
        2,
        0,
        -1,
        -0,
        1.5,
        0.001,
        999,
        1000,
        1e6,
        1e6 + 0.01,
        2 ** 31,
        2 ** 53 + 1,
        1e308,
        -1e308,
        5e-324,
        Number.MAX_SAFE_INTEGER,
      ),
      weight: 3,
    },
    { arbitrary: fc.double(), weight: 1 },
    {
      arbitrary: fc.constantFrom(null, true, false, '', ' ', '1', '[]', {}, [], [null], { $gt: '' }, ['a'.repeat(100)]),
      weight: 2,
    },
    {
      arbitrary: fc.array(fc.constantFrom(...knownGuids, 'x', '00000000-0000-0000-0000-000000000000'), {
        maxLength: 30,
      }),
      weight: 1,
    },
    { arbitrary: printable(60), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
  );
}

/** An object shaped like the route's body schema (same field names), with each field valid, wrong or missing. */
function shapedBodyArb(route: Route): fc.Arbitrary<Record<string, unknown>> {
  const schema = contracts[route.handler]?.body as { shape?: Record<string, unknown> } | undefined;
  const names = Object.keys(schema?.shape ?? {});
  const fields = Object.fromEntries(names.map((name) => [name, fieldValueArb()]));
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.dictionary(
        fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'PK', 'SK', 'version'), printable(10)),
        fieldValueArb(),
        { maxKeys: 2 },
      ),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
}

const nested = (depth: number, open: string, close: string, leaf = '1') =>
  `${open.repeat(depth)}${leaf}${close.repeat(depth)}`;

/** Raw bodies: broken JSON, deep nesting, huge numbers, duplicate keys, invalid UTF-8, pollution keys. */
function rawBodyArb(route: Route): fc.Arbitrary<string | Uint8Array> {
  const names = Object.keys(
    (contracts[route.handler]?.body as { shape?: Record<string, unknown> } | undefined)?.shape ?? { Field: 0 },
  );
  const first = names[0] as string;
  const guid =
    Object.values(fixtures)
      .flat()
      .find((value) => /^[0-9a-f]{32}$/.test(value)) ?? '0'.repeat(32);
  const utf8 = (parts: (string | number[])[]) =>
    Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));
  return fc.oneof(
    fc.constantFrom<string | Uint8Array>(
      '',
      ' ',
      'null',
      'true',
      '0',
      '"text"',
      '[]',
      '{}',
      '{',
      '{"',
      '{"a":}',
      '{"a":1,}',
      "{'a':1}",
      '\uFEFF{}',
      '{"a":1}{"b":2}',
      'NaN',
      '{"a":NaN}',
      '{"a":Infinity}',
      nested(100_000, '[', ']'),
      nested(50_000, '{"a":', '}'),
      nested(2_000, '{"__proto__":', '}', '{"polluted":true}'),
      `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"${first}":"${guid}"}`,
      `{"${first}":1e999}`,
      `{"${first}":-1e999}`,
      `{"${first}":1${'0'.repeat(400)}}`,
      `{"${first}":0.${'0'.repeat(400)}1}`,
      `{"${first}":123456789012345678901234567890}`,
      `{"${first}":-0}`,
      `{${names.map((name) => `"${name}":"${guid}","${name}":1`).join(',')}}`,
      `{${names.map((name) => `"${name}":1,"${name}":"${guid}"`).join(',')}}`,
      `{"${first}":"\\ud800"}`,
      `{"${first}":"\\u0000"}`,
      `{"${first}":"${'a'.repeat(1024 * 1024)}"}`,
      utf8(['{"', first, '":"', [0xff, 0xfe, 0xc3, 0x28], '"}']),
      utf8(['{"', [0xc0, 0xaf], '":1}']),
      utf8([[0xed, 0xa0, 0x80], '{}']),
      utf8([[0xef, 0xbb, 0xbf], '{"', first, '":1}']),
      utf8([[0x00, 0x7b, 0x00, 0x7d]]),
    ),
    printable(200),
    fc.uint8Array({ maxLength: 300 }),
    fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value)),
    shapedBodyArb(route).map((value) => JSON.stringify(value).slice(0, -1)),
  );
}

function bodyArb(route: Route): fc.Arbitrary<string | Uint8Array | undefined> {
  if (route.method === 'GET') return fc.constant(undefined);
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: shapedBodyArb(route).map((value) => JSON.stringify(value)), weight: 5 },
    { arbitrary: rawBodyArb(route), weight: 4 },
  );
}

/**
 * The pull routes fetch URLs: a generated request must never name a host beyond loopback. Every `://`
 * (JSON's `\/` and `\u002f` escapes decoded first) must be followed by a loopback host. Found with
 * `indexOf`, not a regular expression: a scheme pattern backtracks quadratically over the megabyte-long
 * letter strings some bodies carry, and the run hung there.
 */
const loopbackOnly = (body: string | Uint8Array | undefined): boolean => {
  const raw = typeof body === 'string' ? body : body ? Buffer.from(body).toString('latin1') : '';
  const text = raw.replaceAll('\\/', '/').replace(/\\u002f/gi, '/');
  for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', at + 3)) {
    const host = /^\/*([^/"\\?#\s]*)/.exec(text.slice(at + 3, at + 3 + 300))?.[1] ?? '';
    if (!/^(127\.0\.0\.1|\[::1\])(:\d+)?$/.test(host)) return false;
  }
  return true;
};

/** Answers of the front to requests that reach no operation: a path no route takes, an unparsable request. */
const FRONT_CODES = new Set(['RouteNotFound', 'MethodNotAllowed', 'MalformedRequest', 'RequestHeaderFieldsTooLarge']);

/** Checks one answer and that a refusal changed nothing; returns a description of what is wrong, if anything. */
async function checkAnswer(route: Route, answer: Awaited<ReturnType<typeof call>>): Promise<void> {
  const label = `${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, label).toBeLessThan(500);
  expect(answer.contentType, label).toBe('application/json; charset=utf-8');
  expect(answer.text, label).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
  expect(({} as Record<string, unknown>).polluted, 'Object.prototype polluted').toBeUndefined();
  const after = await snapshotStore(service);
  if (answer.status >= 400) {
    expect(answer.json?.Error, label).toEqual(
      expect.objectContaining({ Code: expect.any(String), Message: expect.any(String) }),
    );
    // The OpenAPI document lists this status and code for the operation (answers to no operation aside).
    if (!FRONT_CODES.has(answer.json.Error.Code))
      expect(
        errorCodesOf(route, contracts[route.handler] ?? {})[answer.status as 400],
        `not in the OpenAPI document: ${label}`,
      ).toContain(answer.json.Error.Code);
    expect(storeDiff(snapshot, after), `state changed by a refused request: ${label}`).toEqual([]);
  } else {
    expect(answer.status, label).toBe(200);
    const schema = contracts[route.handler]?.response;
    if (schema) expect(schema.safeParse(answer.json).error?.issues ?? [], label).toEqual([]);
  }
  snapshot = after;
}

describe.each(jsonRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_name, route) => {
  it('answers random and adversarial requests with a 4xx JSON error or a valid success, and refusals change nothing', async () => {
    fixtures = await freshFixtures();
    snapshot = await snapshotStore(service);
    const headersOf = credentials[route.credential] as Record<string, string>;
    await fc.assert(
      fc.asyncProperty(pathArb(route), queryArb, headersArb, bodyArb(route), async (path, query, headers, body) => {
        fc.pre(loopbackOnly(body) && loopbackOnly(path + query));
        const started = Date.now();
        const answer = await call(route.method, path + query, { ...headers, ...headersOf }, body);
        if (process.env.PROPERTY_TRACE)
          console.error(
            `${Date.now() - started} ms ${route.method} ${path.slice(0, 80)} -> ${answer.status} body ${typeof body === 'string' ? body.length : body?.length}`,
          );
        await checkAnswer(route, answer);
      }),
      // In CI a failure is reported as found: shrinking over HTTP can take far longer than the test itself.
      {
        numRuns: NUM_RUNS,
        seed: SEED,
        interruptAfterTimeLimit: 15_000,
        markInterruptAsFailure: false,
        endOnFailure: process.env.CI === 'true',
      },
    );
  });
});

describe.each(bodyRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
  '%s with an oversized body',
  (_name, route) => {
    it('refuses a body over the 6 MiB front cap with 413 and one just under it with a 4xx or a valid success', async () => {
      fixtures = await freshFixtures();
      snapshot = await snapshotStore(service);
      const path = route.path.replace(/\{([^}]+)\}/g, (_match, name: string) => fixtures[name]?.[0] ?? '1');
      const headers = {
        ...(credentials[route.credential] as Record<string, string>),
        'Content-Type': 'application/json',
      };
      const over = await call(route.method, path, headers, Buffer.alloc(MAX_REQUEST_BYTES + 1, 0x20));
      expect(over.status).toBe(413);
      await checkAnswer(route, over);
      const field = Object.keys(
        (contracts[route.handler]?.body as { shape?: Record<string, unknown> } | undefined)?.shape ?? { Field: 0 },
      )[0];
      const under = `{"${field}":"${'x'.repeat(MAX_REQUEST_BYTES - 100)}"}`;
      await checkAnswer(route, await call(route.method, path, headers, under));
    });
  },
);

it('covers every JSON route that has a handler', () => {
  if (!onlyHandlers) expect(jsonRoutes.length).toBeGreaterThanOrEqual(12);
  for (const route of jsonRoutes) expect(contracts[route.handler], route.handler).toBeDefined();
});
