/**
 * Credential failures say why, over HTTP against the local stack: each refused credential's 401 names its
 * reason (and, for bearer tokens, carries RFC 6750's WWW-Authenticate), each forbidden one's 403 names what
 * the route takes and what was sent. Then the guarantees the design rests on (docs/design.md, Credential
 * failures): a refusal the authorizer lets through carries no identity, and every handler answers it 401.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokeRoute } from '../support/direct-invocation.ts';
import { startTestService, type TestResponse, type TestService } from '../support/service.ts';
import { routes } from '../../functions/routes.ts';
import { ensureSigningKeys, signLocalToken } from '../../lib/local/signing-keys.ts';
import { lambdaContext } from '../../lib/local/lambda-event.ts';
import type { RequestAuthorizer } from '../../lib/local/api-gateway.ts';

let service: TestService;
const otherDataDir = mkdtempSync(join(tmpdir(), 'credential-failures-other-'));
let token: string;
let siteKey: string;
let libraryKey: string;
const GUID = '0123456789abcdef0123456789abcdef';
const UNKNOWN_KEY = '0f8fad5b-d9cb-469f-a165-70867728950e';

beforeAll(async () => {
  service = await startTestService();
  token = await service.token('failures-alice');
  siteKey = await service.apiKey('failures-site', 'site');
  libraryKey = await service.apiKey('failures-library', 'library');
});
afterAll(async () => {
  await service?.close();
  rmSync(otherDataDir, { recursive: true, force: true });
});

const error = (response: TestResponse) => ({ status: response.status, ...response.body.Error });
const challengeOf = (response: TestResponse) => response.headers.get('www-authenticate');
const invalidToken = (description: string) =>
  `Bearer realm="photo-commerce", error="invalid_token", error_description="${description}"`;

describe('401: the reason for each refused credential', () => {
  it('no credential: what to send, and a bare Bearer challenge', async () => {
    const response = await service.request('GET', '/baskets');
    expect(error(response)).toEqual({
      status: 401,
      Code: 'Unauthorized',
      Message:
        'No credential: user routes take Authorization: Bearer <token>, API key routes take the X-SERVICE-API-Key header (see GET /openapi.json).',
    });
    expect(challengeOf(response)).toBe('Bearer realm="photo-commerce"');
  });

  it('a malformed token', async () => {
    const response = await service.request('GET', '/baskets', { token: 'not-a-jwt' });
    const Message = 'The bearer token is not a well-formed JWT.';
    expect(error(response)).toEqual({ status: 401, Code: 'Unauthorized', Message });
    expect(challengeOf(response)).toBe(invalidToken(Message));
  });

  it('Authorization: Basic', async () => {
    const response = await service.request('GET', '/baskets', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(error(response)).toEqual({
      status: 401,
      Code: 'Unauthorized',
      Message:
        'The Authorization header is not of the form Bearer <token> (the Basic scheme is not accepted): send a bearer token as Authorization: Bearer <token>.',
    });
    expect(challengeOf(response)).toBe('Bearer realm="photo-commerce"');
  });

  it('an expired token: when it expired', async () => {
    const expired = await service.token('failures-alice', { ttlSeconds: -600 });
    const exp = JSON.parse(Buffer.from(expired.split('.')[1] as string, 'base64url').toString()).exp as number;
    const response = await service.request('GET', '/baskets', { token: expired });
    const Message = `The bearer token expired at ${new Date(exp * 1000).toISOString()}; get a new one.`;
    expect(error(response)).toEqual({ status: 401, Code: 'Unauthorized', Message });
    expect(challengeOf(response)).toBe(invalidToken(Message));
  });

  it("a token signed by another data folder's keys: this server's DATA_DIR", async () => {
    const foreign = await signLocalToken(await ensureSigningKeys(otherDataDir), { userId: 'failures-alice' });
    const response = await service.request('GET', '/baskets', { token: foreign });
    const Message = `The bearer token is not signed by the keys of this server's data folder (DATA_DIR ${service.dataDir}); it was made with another data folder's keys. Make one with npm run token and the same DATA_DIR.`;
    expect(error(response)).toEqual({ status: 401, Code: 'Unauthorized', Message });
    expect(challengeOf(response)).toBe(invalidToken(Message));
  });

  it('a token of another issuer, or for another audience', async () => {
    const otherIssuer = await service.token('failures-alice', { issuer: 'https://elsewhere.example' });
    const fromElsewhere = await service.request('GET', '/baskets', { token: otherIssuer });
    expect(error(fromElsewhere)).toEqual({
      status: 401,
      Code: 'Unauthorized',
      Message: 'The bearer token was issued by another issuer than the one this API trusts.',
    });
    expect(challengeOf(fromElsewhere)).toContain('error="invalid_token"');
    const otherAudience = await service.token('failures-alice', { audience: 'another-api' });
    expect(error(await service.request('GET', '/baskets', { token: otherAudience }))).toEqual({
      status: 401,
      Code: 'Unauthorized',
      Message: 'The bearer token is meant for another audience or app client than this API.',
    });
  });

  it('an unknown key, and a revoked one: the same answer, no WWW-Authenticate', async () => {
    const unknown = await service.request('GET', `/checkout/${GUID}`, { apiKey: UNKNOWN_KEY });
    expect(error(unknown)).toEqual({
      status: 401,
      Code: 'Unauthorized',
      Message: 'The API key is unknown or revoked.',
    });
    expect(challengeOf(unknown)).toBeNull();
    const { createApiKey, revokeApiKey } = await import('../../functions/store/api-key-store.ts');
    const name = `failures-revoked-${crypto.randomUUID().slice(0, 8)}`;
    const { apiKey } = await createApiKey(name, 'site', Date.now());
    expect((await service.request('GET', `/checkout/${GUID}`, { apiKey })).status).toBe(404);
    expect(await revokeApiKey(name)).toEqual({ webhooksDisabled: 0 });
    expect(error(await service.request('GET', `/checkout/${GUID}`, { apiKey }))).toEqual(error(unknown));
  });

  it('x-api-key instead of X-SERVICE-API-Key, and an API key in Authorization: which header to use', async () => {
    const xApiKey = await service.request('GET', `/checkout/${GUID}`, { headers: { 'x-api-key': siteKey } });
    expect(error(xApiKey)).toEqual({
      status: 401,
      Code: 'Unauthorized',
      Message: 'API keys do not go in the x-api-key header; send an API key in the X-SERVICE-API-Key header.',
    });
    expect(xApiKey.text).not.toContain(siteKey);
    const inAuthorization = await service.request('GET', `/checkout/${GUID}`, { headers: { Authorization: siteKey } });
    expect(error(inAuthorization)).toEqual({
      status: 401,
      Code: 'Unauthorized',
      Message:
        'The Authorization header carries what looks like an API key; send an API key in the X-SERVICE-API-Key header.',
    });
  });
});

describe('403: what the route takes, and what the request carried', () => {
  it('a valid key of the wrong scope names the scope the route takes', async () => {
    const response = await service.request('GET', `/project/${GUID}`, { apiKey: siteKey });
    expect(error(response)).toEqual({
      status: 403,
      Code: 'Forbidden',
      Message:
        'This endpoint takes an API key of scope catalog (X-SERVICE-API-Key); the request carried an API key of scope site.',
    });
  });

  it('a bearer token on a key route, and a key on a user route', async () => {
    expect(error(await service.request('POST', '/library/builder', { token, json: { Guids: [] } }))).toEqual({
      status: 403,
      Code: 'Forbidden',
      Message:
        'This endpoint takes an API key of scope library (X-SERVICE-API-Key); the request carried a bearer token.',
    });
    expect(error(await service.request('GET', '/baskets', { apiKey: libraryKey }))).toEqual({
      status: 403,
      Code: 'Forbidden',
      Message:
        'This endpoint takes a bearer token (Authorization: Bearer <token>); the request carried an API key of scope library.',
    });
  });
});

describe('no handler serves a refused request', () => {
  it('every route of the route table answers 401 with the reason of a refusal context', async () => {
    for (const route of routes) {
      const answer = await invokeRoute(
        route,
        { refusal: 'The API key is unknown or revoked.', principalId: 'refused' },
        '{}',
      );
      expect(answer.statusCode, route.handler).toBe(401);
      expect(JSON.parse(answer.body).Error, route.handler).toEqual({
        Code: 'Unauthorized',
        Message: 'The API key is unknown or revoked.',
      });
    }
  });

  it("the authorizer's Allow of a refusal carries no user id and no key, on every protected route", async () => {
    const { handler: authorize } = (await import('../../functions/handlers/authorizer.ts')) as {
      handler: RequestAuthorizer;
    };
    const refused = [
      { Authorization: 'Bearer not-a-jwt' },
      { Authorization: `Bearer ${await service.token('failures-alice', { ttlSeconds: -600 })}` },
      { 'X-SERVICE-API-Key': UNKNOWN_KEY },
      { 'x-api-key': siteKey },
    ];
    for (const route of routes.filter((candidate) => candidate.credential !== 'none')) {
      for (const headers of refused) {
        const event = {
          type: 'REQUEST',
          methodArn: `arn:aws:execute-api:local:000000000000:local/local/${route.method}${route.path}`,
          resource: route.path,
          httpMethod: route.method,
          headers,
        } as unknown as APIGatewayRequestAuthorizerEvent;
        const answer = await authorize(event, lambdaContext('authorizer'));
        expect(Object.keys(answer.context ?? {}), `${route.handler} ${Object.keys(headers)[0]}`).toEqual(
          expect.arrayContaining(['refusal']),
        );
        for (const key of Object.keys(answer.context ?? {})) expect(['refusal', 'challenge']).toContain(key);
        expect(answer.principalId).toBe('refused');
      }
    }
  });
});
