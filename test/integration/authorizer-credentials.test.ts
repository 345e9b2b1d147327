/**
 * One credential per answer. API Gateway caches an authorizer's answer by that authorizer's identity
 * header only (Authorization for user routes, X-SERVICE-API-Key for key routes), so the answer must be
 * built from that header alone: a token sent beside a key must not put a `userId` into the key's cached
 * context (a later caller with the same key would inherit it), nor decide its 401. And a handler of a
 * key route refuses a key of another scope on its own, whatever context reaches it.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokeRoute } from '../support/direct-invocation.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { keyScopeOf, routes, type Route } from '../../functions/routes.ts';
import { API_KEY_SCOPES } from '../../functions/auth/principal.ts';
import { createApiGatewayFront, type ProxyHandler, type RequestAuthorizer } from '../../lib/local/api-gateway.ts';
import { lambdaContext } from '../../lib/local/lambda-event.ts';
import { isAllowed, type PolicyDocument } from '../../functions/auth/policy.ts';
import { contracts } from '../../functions/contracts/registry.ts';

let service: TestService;
let authorize: RequestAuthorizer;
const authorizeOnce = (event: APIGatewayRequestAuthorizerEvent) => authorize(event, lambdaContext('authorizer'));
let token: string;
let libraryKey: string;
let catalogKey: string;
/** A front over the real authorizer whose every handler echoes the authorizer context it received. */
let echoFront: Server;
let echoUrl: string;

const routeOf = (method: string, path: string) =>
  routes.find((route) => route.method === method && route.path === path) as Route;
const arnOf = (method: string, path: string) => `arn:aws:execute-api:local:000000000000:local/local/${method}${path}`;

function authorizerEvent(route: Route, headers: Record<string, string>): APIGatewayRequestAuthorizerEvent {
  const path = route.path.replace(/\{[^}]+\}/g, '0123456789abcdef0123456789abcdef');
  return {
    type: 'REQUEST',
    methodArn: arnOf(route.method, path),
    resource: route.path,
    path,
    httpMethod: route.method,
    headers,
    multiValueHeaders: {},
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

beforeAll(async () => {
  service = await startTestService();
  ({ handler: authorize } = (await import('../../functions/handlers/authorizer.ts')) as { handler: RequestAuthorizer });
  token = await service.token('credentials-alice');
  libraryKey = await service.apiKey('credentials-library', 'library');
  catalogKey = await service.apiKey('credentials-catalog', 'catalog');
  const echo: ProxyHandler = async (event) => ({
    statusCode: 200,
    body: JSON.stringify(event.requestContext.authorizer),
  });
  echoFront = createApiGatewayFront({
    routes,
    loadHandler: async () => echo,
    authorizer: authorize,
    binaryMediaTypes: [],
    maxBodyBytes: 1024,
  });
  await new Promise<void>((resolve) => echoFront.listen(0, '127.0.0.1', resolve));
  echoUrl = `http://127.0.0.1:${(echoFront.address() as AddressInfo).port}`;
});
afterAll(async () => {
  echoFront?.closeAllConnections();
  echoFront?.close();
  await service?.close();
});

describe("the authorizer's answer holds the route's credential only", () => {
  const builder = () => routeOf('POST', '/library/builder');
  const baskets = () => routeOf('GET', '/baskets');

  it('a key route: no userId and no user routes from a token sent alongside', async () => {
    const result = await authorizeOnce(
      authorizerEvent(builder(), { Authorization: `Bearer ${token}`, 'X-SERVICE-API-Key': libraryKey }),
    );
    expect(result.context).not.toHaveProperty('userId');
    expect(result.context).toMatchObject({ apiKeyScope: 'library' });
    expect(result.principalId).toMatch(/^apikey:/);
    expect(isAllowed(result.policyDocument as PolicyDocument, arnOf('GET', '/baskets'))).toBe(false);
  });

  it('a user route: no key fields and no key routes from a key sent alongside', async () => {
    const result = await authorizeOnce(
      authorizerEvent(baskets(), { Authorization: `Bearer ${token}`, 'X-SERVICE-API-Key': libraryKey }),
    );
    expect(result.context).toEqual({ userId: 'credentials-alice' });
    expect(isAllowed(result.policyDocument as PolicyDocument, arnOf('POST', '/library/builder'))).toBe(false);
  });

  it("the other header, valid or not, does not decide the route's answer", async () => {
    const expired = await service.token('credentials-alice', { ttlSeconds: -600 });
    const withBadToken = await authorizeOnce(
      authorizerEvent(builder(), { Authorization: `Bearer ${expired}`, 'X-SERVICE-API-Key': libraryKey }),
    );
    expect(withBadToken.context).toMatchObject({ apiKeyScope: 'library' });
    const withBadKey = await authorizeOnce(
      authorizerEvent(baskets(), { Authorization: `Bearer ${token}`, 'X-SERVICE-API-Key': 'not-a-key' }),
    );
    expect(withBadKey.context).toEqual({ userId: 'credentials-alice' });
  });

  it('through the local front: a key route hands its handler the key alone; a user route the user alone', async () => {
    const both = {
      Authorization: `Bearer ${token}`,
      'X-SERVICE-API-Key': libraryKey,
      'Content-Type': 'application/json',
    };
    const keyContext = await (
      await fetch(`${echoUrl}/library/builder`, { method: 'POST', headers: both, body: '{}' })
    ).json();
    expect(keyContext).not.toHaveProperty('userId');
    expect(keyContext).toMatchObject({ apiKeyScope: 'library' });
    const userContext = await (await fetch(`${echoUrl}/baskets`, { headers: both })).json();
    expect(userContext).not.toHaveProperty('apiKeyId');
    expect(userContext).toMatchObject({ userId: 'credentials-alice' });
  });

  it('through the whole service: a library key with an expired token beside it still works', async () => {
    const expired = await service.token('credentials-alice', { ttlSeconds: -600 });
    const response = await service.request('POST', '/library/builder', {
      apiKey: libraryKey,
      token: expired,
      json: { Guids: [] },
    });
    expect(response.status).not.toBe(401);
    expect(response.status).toBeLessThan(500);
  });

  it('a wrong-kind credential alone is still a 403 (valid) or 401 (invalid)', async () => {
    expect((await service.request('GET', '/baskets', { apiKey: libraryKey })).status).toBe(403);
    expect((await service.request('GET', '/baskets', { apiKey: 'not-a-key' })).status).toBe(401);
    expect((await service.request('POST', '/library/builder', { token, json: { Guids: [] } })).status).toBe(403);
  });
});

describe('handlers check the key scope themselves (a forged authorizer context)', () => {
  const invoke = (route: Route, scope: string) =>
    invokeRoute(
      route,
      { apiKeyId: 'k', apiKeyName: 'forged', apiKeyScope: scope, principalId: 'apikey:k' },
      JSON.stringify({ UnitPrice: 1, Version: 1, Status: 'InProduction', PaymentReference: 'forged', Guids: [] }),
    );

  it("every route's contract names the route table's credential, so the handler checks the right scope", () => {
    for (const route of routes)
      expect(contracts[route.handler]?.principal, route.handler).toBe(
        route.credential === 'none' ? undefined : route.credential,
      );
  });

  it('every key route answers 403 to a key of any other scope, the retired `internal` included, and not to its own', async () => {
    const keyRoutes = routes.filter((route) => keyScopeOf(route) !== undefined);
    expect(keyRoutes.length).toBeGreaterThan(10);
    for (const route of keyRoutes) {
      for (const scope of [...API_KEY_SCOPES, 'internal'].filter((other) => other !== route.credential)) {
        const refused = await invoke(route, scope);
        expect(refused.statusCode, `${route.handler} with ${scope}`).toBe(403);
        expect(JSON.parse(refused.body).Error.Code, route.handler).toBe('Forbidden');
      }
      expect((await invoke(route, route.credential)).statusCode, route.handler).not.toBe(403);
    }
  });

  it('a catalog key is accepted over HTTP on its routes', async () => {
    expect(
      (await service.request('GET', `/project/${crypto.randomUUID().replaceAll('-', '')}`, { apiKey: catalogKey }))
        .status,
    ).toBe(404);
  });
});
