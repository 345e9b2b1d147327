/**
 * The client's behaviour where the service has to misbehave: a scripted loopback stub for 429 / 503 /
 * dropped connections / silence / pages, and a lossy loopback proxy in front of the real local service
 * to prove that a retry of a creating call whose first answer was lost creates nothing twice.
 * No timing assertions: delays are read from `onRetry`, not measured.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.ts';
import { ApiError, ConnectionError, PhotoCommerceClient, TimeoutError, type RetryInfo } from '../src/index.ts';
import { fromWireDate, toWireJson } from '../src/dates.ts';
import { randomUuid } from '../src/uuid.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

type Reply = (request: IncomingMessage, response: ServerResponse) => void;

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (_request, response) =>
    response
      .writeHead(status, { 'Content-Type': 'application/json', Connection: 'close', ...headers })
      .end(JSON.stringify(body));
const dropConnection: Reply = (request) => request.socket.destroy();
const silence: Reply = () => undefined;
const basketJson = {
  Guid: 'a'.repeat(32),
  Lines: [],
  OrderTotal: 0,
  CreatedDateUtc: '/Date(1763700000000)/',
  LastSavedDateUtc: '/Date(1763700000000)/',
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A loopback server answering each request with the next scripted reply (the last one repeats); no keep-alive, so no test meets another's socket. */
let script: Reply[] = [];
const seen: Seen[] = [];
let stub: Server;
let stubUrl: string;
const retries: RetryInfo[] = [];
const client = (options: Partial<ConstructorParameters<typeof PhotoCommerceClient>[0]> = {}) =>
  new PhotoCommerceClient({
    baseUrl: stubUrl,
    token: 'token',
    apiKey: 'key',
    onRetry: (retry) => retries.push(retry),
    ...options,
  });

beforeAll(async () => {
  stub = createServer((request, response) => {
    seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    request.resume();
    const reply = script.length > 1 ? (script.shift() as Reply) : (script[0] as Reply);
    request.on('end', () => reply(request, response));
  });
  stubUrl = await listen(stub);
});
afterEach(() => {
  seen.length = 0;
  retries.length = 0;
});
afterAll(() => {
  stub?.closeAllConnections();
  stub?.close();
});

describe('retries', () => {
  it('retries a 503 after the Retry-After it names, with the same Idempotency-Key', async () => {
    script = [
      json(503, { Error: { Code: 'ServiceUnavailable', Message: 'busy', Retryable: true } }, { 'Retry-After': '1' }),
      json(200, basketJson),
    ];
    const basket = await client().baskets.create();
    expect(basket.Guid).toBe('a'.repeat(32));
    expect(
      retries.map(({ attempt, delayMs, error }) => ({ attempt, delayMs, status: (error as ApiError).status })),
    ).toEqual([{ attempt: 2, delayMs: 1000, status: 503 }]);
    expect(seen).toHaveLength(2);
    const [first, second] = seen.map((request) => request.headers['idempotency-key']);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
  });

  it('retries a 429 at once when Retry-After is 0, and a new call gets a new key', async () => {
    script = [
      json(429, { Error: { Code: 'TooManyRequests', Message: 'slow down' } }, { 'Retry-After': '0' }),
      json(200, basketJson),
    ];
    await client().baskets.create();
    script = [json(200, basketJson)];
    await client().baskets.create({ idempotencyKey: 'my-own-key' });
    expect(retries.map((retry) => retry.delayMs)).toEqual([0]);
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual([
      seen[0]!.headers['idempotency-key'],
      seen[0]!.headers['idempotency-key'],
      'my-own-key',
    ]);
  });

  it('retries a dropped connection with exponential backoff and jitter, asking the token provider each time', async () => {
    script = [dropConnection, dropConnection, json(200, basketJson)];
    let tokens = 0;
    await client({ token: async () => `token-${++tokens}` }).baskets.get('a'.repeat(32));
    expect(retries.map((retry) => retry.error)).toEqual([expect.any(ConnectionError), expect.any(ConnectionError)]);
    const [first, second] = retries.map((retry) => retry.delayMs) as [number, number];
    expect(first).toBeGreaterThanOrEqual(250);
    expect(first).toBeLessThanOrEqual(500);
    expect(second).toBeGreaterThanOrEqual(500);
    expect(second).toBeLessThanOrEqual(1000);
    expect(seen.map((request) => request.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-2',
      'Bearer token-3',
    ]);
    expect(seen.every((request) => request.headers['idempotency-key'] === undefined)).toBe(true);
  });

  it('gives up after maxRetries with the last error, and never retries a refusal', async () => {
    script = [
      json(503, { Error: { Code: 'ServiceUnavailable', Message: 'busy', Retryable: true } }, { 'Retry-After': '0' }),
    ];
    const busy = await client({ maxRetries: 1 })
      .health()
      .catch((error: unknown) => error);
    expect(busy).toMatchObject({ status: 503, code: 'ServiceUnavailable', retryable: true, retryAfterMs: 0 });
    expect(seen).toHaveLength(2);

    seen.length = 0;
    script = [
      json(400, {
        Error: { Code: 'ValidationFailed', Message: 'Quantity: must be from 1 to 999', Fields: ['Quantity'] },
      }),
    ];
    const refused = await client()
      .baskets.addLine('a'.repeat(32), { ProjectGuid: 'b'.repeat(32), Quantity: 0 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      status: 400,
      code: 'ValidationFailed',
      message: 'Quantity: must be from 1 to 999',
      fields: ['Quantity'],
    });
    expect(seen).toHaveLength(1);
  });

  it('turns a non-JSON error page into an ApiError', async () => {
    script = [
      (_request, response) =>
        response.writeHead(502, { 'Content-Type': 'text/html', Connection: 'close' }).end('<h1>Bad gateway</h1>'),
    ];
    await expect(client().health()).rejects.toMatchObject({
      status: 502,
      code: 'Http502',
      message: '<h1>Bad gateway</h1>',
    });
  });

  it('says so in a 401 when the credential it sent was empty (an unset variable)', async () => {
    const refused = json(401, { Error: { Code: 'Unauthorized', Message: 'No credential.' } });
    script = [refused];
    await expect(client({ token: async () => '' }).baskets.create()).rejects.toMatchObject({
      status: 401,
      message: "No credential. (this client sent an empty bearer token: its token option gave '')",
    });
    await expect(client({ apiKey: '' }).library.builderUrl('a'.repeat(32))).rejects.toThrow(/empty API key/);
    await expect(client().baskets.create()).rejects.toMatchObject({ message: 'No credential.' });
  });
});

describe('timeout and abort', () => {
  it('ends an attempt after timeoutMs with a TimeoutError', async () => {
    script = [silence];
    const error = await client({ timeoutMs: 100, maxRetries: 0 })
      .health()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(seen).toHaveLength(1);
  });

  it('retries a timed-out attempt like a lost connection when retries are left', async () => {
    script = [silence, json(200, { Status: 'ok' })];
    expect(await client({ timeoutMs: 200 }).health({ maxRetries: 1 })).toEqual({ Status: 'ok' });
    expect(retries.map((retry) => retry.error)).toEqual([expect.any(TimeoutError)]);
  });

  it('rejects with the AbortSignal reason, mid-request or while waiting to retry, and does not retry', async () => {
    script = [silence];
    const controller = new AbortController();
    const call = client().health({ signal: controller.signal });
    await expect.poll(() => seen.length).toBe(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });

    script = [json(503, { Error: { Code: 'ServiceUnavailable', Message: 'busy' } }, { 'Retry-After': '30' })];
    const waiting = new AbortController();
    const retried = client({ onRetry: () => waiting.abort() }).health({ signal: waiting.signal });
    await expect(retried).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(2);
  });
});

describe('pagination', () => {
  it('iterates every page in order, passing each NextCursor back', async () => {
    const order = (n: number) => ({
      OrderGuid: String(n).padStart(32, '0'),
      Lines: [],
      OrderTotal: n,
      Status: 'OrderReceived',
      CreatedDateUtc: `/Date(${n})/`,
      CompletedDateUtc: `/Date(${n})/`,
      LastSavedDateUtc: `/Date(${n})/`,
    });
    script = [
      json(200, { Orders: [order(1), order(2)], NextCursor: 'c2' }),
      json(200, { Orders: [order(3)], NextCursor: 'c3' }),
      json(200, { Orders: [order(4)] }),
    ];
    const totals: number[] = [];
    for await (const each of client().orders.list({ projectguid: 'b'.repeat(32) })) {
      expect(each.CreatedDateUtc).toEqual(new Date(each.OrderTotal));
      totals.push(each.OrderTotal);
    }
    expect(totals).toEqual([1, 2, 3, 4]);
    expect(seen.map((request) => request.url)).toEqual([
      `/orders?projectguid=${'b'.repeat(32)}`,
      `/orders?projectguid=${'b'.repeat(32)}&cursor=c2`,
      `/orders?projectguid=${'b'.repeat(32)}&cursor=c3`,
    ]);
  });
});

describe('dates on the wire', () => {
  it('writes Dates as "\\/Date(ms)\\/" and reads them back, the .NET MinValue form included', () => {
    expect(JSON.parse(toWireJson({ At: new Date(1763700000000), Nested: [{ At: new Date(0) }] }))).toEqual({
      At: '/Date(1763700000000)/',
      Nested: [{ At: '/Date(0)/' }],
    });
    expect(fromWireDate('/Date(-62135596800000+0000)/')?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(fromWireDate('2026-01-01')).toBeUndefined();
  });
});

describe('Idempotency-Key generation', () => {
  afterEach(() => vi.unstubAllGlobals());
  const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('falls back to getRandomValues, then Math.random, where crypto.randomUUID is missing (React Native, insecure origins)', () => {
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => bytes.fill(0xab) });
    expect(randomUuid()).toBe('abababab-abab-4bab-abab-abababababab');
    vi.stubGlobal('crypto', undefined);
    const keys = new Set(Array.from({ length: 100 }, randomUuid));
    expect(keys.size).toBe(100);
    expect([...keys].every((key) => UUID_V4.test(key))).toBe(true);
  });
});

describe('Idempotency-Key against the real service', () => {
  let service: TestService;
  let proxy: Server;
  let proxyUrl: string;
  const keys: string[] = [];
  let dropNextBasketAnswer = true;

  beforeAll(async () => {
    service = await startTestService();
    // Forwards to the service; the first POST /basket is applied there but its answer never comes back.
    proxy = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      if (request.url === '/basket') keys.push(String(request.headers['idempotency-key']));
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
      ) as Record<string, string>;
      const upstream = await fetch(`${service.url}${request.url}`, {
        method: request.method ?? 'GET',
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (request.url === '/basket' && dropNextBasketAnswer) {
        dropNextBasketAnswer = false;
        request.socket.destroy();
        return;
      }
      response
        .writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/json' })
        .end(body);
    });
    proxyUrl = await listen(proxy);
  });
  afterAll(async () => {
    proxy?.closeAllConnections();
    proxy?.close();
    await service?.close();
  });

  it('creates exactly one basket when the first answer is lost and the retry reuses the key', async () => {
    const token = await service.token(`lossy-${Date.now()}`);
    const lossy = new PhotoCommerceClient({ baseUrl: proxyUrl, token, onRetry: (retry) => retries.push(retry) });
    const basket = await lossy.baskets.create();
    expect(retries.map((retry) => retry.error)).toEqual([expect.any(ConnectionError)]);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    const direct = new PhotoCommerceClient({ baseUrl: service.url, token });
    expect((await direct.baskets.list().toArray()).map((each) => each.Guid)).toEqual([basket.Guid]);
  });
});
