/**
 * CORS: allowed origins come from CORS_ALLOWED_ORIGINS (none by default), are echoed exactly, and never
 * come with credentials, for `*` or otherwise. Actual responses get their headers from the HTTP layer
 * (functions/http/endpoint.ts); preflights and the front's own refusals from the local front, as API
 * Gateway answers them in AWS. The front adds nothing to a handler's answer, so a handler that forgot
 * its CORS headers fails locally as it would in AWS.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { endpoint } from '../../functions/http/endpoint.ts';
import { badRequest } from '../../functions/shared/errors.ts';
import { createApiGatewayFront } from '../../lib/local/api-gateway.ts';
import { lambdaContext } from '../../lib/local/lambda-event.ts';
import { closeServer, listenLocally } from '../../lib/local/listen.ts';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

const SHOP = 'https://shop.example.com';
const ADMIN = 'http://127.0.0.1:5173';
let service: TestService;
let token: string;

beforeAll(async () => {
  service = await startTestService();
  token = await service.token('cors-user');
});
afterAll(() => service?.close());
afterEach(() => {
  delete process.env.CORS_ALLOWED_ORIGINS;
});

const allowOrigin = (response: { headers: Headers }) => response.headers.get('access-control-allow-origin');

describe('CORS through the local front', () => {
  it('allows no origin by default', async () => {
    const response = await service.request('GET', '/health', { headers: { Origin: SHOP } });
    expect(response.status).toBe(200);
    expect(allowOrigin(response)).toBeNull();
    const preflight = await service.request('OPTIONS', '/basket', {
      headers: { Origin: SHOP, 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(allowOrigin(preflight)).toBeNull();
  });

  it('echoes a configured origin on answers, refusals and errors, never with credentials', async () => {
    process.env.CORS_ALLOWED_ORIGINS = `${SHOP}, ${ADMIN}/`;
    for (const origin of [SHOP, ADMIN]) {
      const answers = [
        await service.request('GET', '/baskets', { token, headers: { Origin: origin } }),
        await service.request('GET', `/basket/${'0'.repeat(32)}`, { token, headers: { Origin: origin } }),
        await service.request('GET', '/baskets', { headers: { Origin: origin } }),
        await service.request('GET', '/nowhere', { headers: { Origin: origin } }),
        await service.request('GET', '/baskets', { headers: { Origin: origin, Authorization: 'Bearer not.a.jwt' } }),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([200, 404, 401, 404, 401]);
      // A browser app can read why its token was refused.
      expect(answers[4]?.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      expect(answers[4]?.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
      for (const answer of answers) {
        expect(allowOrigin(answer)).toBe(origin);
        expect(answer.headers.get('vary')).toContain('Origin');
        expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
        expect(answer.headers.get('access-control-expose-headers')).toContain('Retry-After');
      }
    }
  });

  it('gives other origins nothing', async () => {
    process.env.CORS_ALLOWED_ORIGINS = SHOP;
    for (const origin of ['https://evil.example.com', `${SHOP}.evil.example.com`, 'null', SHOP.toUpperCase()]) {
      const response = await service.request('GET', '/baskets', { token, headers: { Origin: origin } });
      expect(response.status).toBe(200);
      expect(allowOrigin(response)).toBeNull();
      const preflight = await service.request('OPTIONS', '/baskets', {
        headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' },
      });
      expect(allowOrigin(preflight)).toBeNull();
      expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    }
  });

  it('answers a preflight with the methods of the path and the headers the API takes', async () => {
    process.env.CORS_ALLOWED_ORIGINS = SHOP;
    const preflight = await service.request('OPTIONS', `/basket/${'a'.repeat(32)}`, {
      headers: { Origin: SHOP, 'Access-Control-Request-Method': 'DELETE' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.text).toBe('');
    expect(allowOrigin(preflight)).toBe(SHOP);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, DELETE, OPTIONS');
    const allowedHeaders = preflight.headers.get('access-control-allow-headers')?.split(', ');
    expect(allowedHeaders).toEqual(
      expect.arrayContaining(['Authorization', 'Content-Type', 'X-SERVICE-API-Key', 'Idempotency-Key']),
    );
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    expect((await service.request('OPTIONS', '/nowhere', { headers: { Origin: SHOP } })).status).toBe(404);
  });

  it('answers `*` without credentials, on answers and preflights', async () => {
    process.env.CORS_ALLOWED_ORIGINS = '*';
    const response = await service.request('GET', '/baskets', {
      token,
      headers: { Origin: 'https://anyone.example.com' },
    });
    expect(allowOrigin(response)).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    const preflight = await service.request('OPTIONS', '/basket', {
      headers: { Origin: 'https://anyone.example.com' },
    });
    expect(allowOrigin(preflight)).toBe('*');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('CORS in the HTTP layer alone (what a Lambda answers behind API Gateway)', () => {
  const handler = endpoint({}, async ({ event }) => {
    if (event.queryStringParameters?.fail) throw badRequest('Nope', 'refused');
    return { Ok: true };
  });
  const invoke = (headers: Record<string, string>, query: Record<string, string> | null = null) =>
    handler(
      { headers, queryStringParameters: query, requestContext: { requestId: 'r' } } as unknown as APIGatewayProxyEvent,
      lambdaContext('cors'),
    ) as Promise<APIGatewayProxyResult>;

  it('adds the allowed origin to successes and errors', async () => {
    process.env.CORS_ALLOWED_ORIGINS = SHOP;
    const ok = await invoke({ Origin: SHOP });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers).toMatchObject({ 'Access-Control-Allow-Origin': SHOP, Vary: 'Origin' });
    const refused = await invoke({ origin: SHOP }, { fail: '1' });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers).toMatchObject({ 'Access-Control-Allow-Origin': SHOP });
    const foreign = await invoke({ Origin: 'https://evil.example.com' });
    expect(foreign.headers?.['Access-Control-Allow-Origin']).toBeUndefined();
    expect(foreign.headers?.['Access-Control-Allow-Credentials']).toBeUndefined();
  });
});

describe('the local front and a handler that forgot CORS', () => {
  it("passes the handler's answer on without CORS headers, and still adds them to its own answers", async () => {
    process.env.CORS_ALLOWED_ORIGINS = SHOP;
    const front = createApiGatewayFront({
      routes: [
        {
          method: 'GET',
          path: '/bare',
          handler: 'bare',
          credential: 'none',
          summary: 'A handler built without the HTTP adapter',
          grants: {},
        },
      ],
      loadHandler: async () => async () => ({
        statusCode: 200,
        headers: { 'Content-Type': 'application/json' },
        body: '{"Ok":true}',
      }),
      authorizer: async () => {
        throw new Error('no route here takes a credential');
      },
      binaryMediaTypes: [],
      maxBodyBytes: 1024,
    });
    const url = await listenLocally(front);
    try {
      const bare = await fetch(`${url}/bare`, { headers: { Origin: SHOP } });
      expect(bare.status).toBe(200);
      expect(await bare.json()).toEqual({ Ok: true });
      expect(allowOrigin(bare)).toBeNull();
      const refused = await fetch(`${url}/nowhere`, { headers: { Origin: SHOP } });
      expect(refused.status).toBe(404);
      expect(allowOrigin(refused)).toBe(SHOP);
      const preflight = await fetch(`${url}/bare`, {
        method: 'OPTIONS',
        headers: { Origin: SHOP, 'Access-Control-Request-Method': 'GET' },
      });
      expect(allowOrigin(preflight)).toBe(SHOP);
    } finally {
      await closeServer(front);
    }
  });
});
