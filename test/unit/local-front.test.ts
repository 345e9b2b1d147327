import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { createApiGatewayFront, type ProxyHandler } from '../../lib/local/api-gateway.ts';
import { loggedPath, matchRoute } from '../../lib/local/route-matching.ts';
import { isAllowed, policyFor, resourceMatches } from '../../functions/auth/policy.ts';
import { routes } from '../../functions/routes.ts';

const arn = (method: string, path: string) => `arn:aws:execute-api:local:000000000000:api/stage/${method}${path}`;

describe('route matching', () => {
  it('matches templates, prefers static segments and tells a wrong method apart', () => {
    const line = matchRoute(routes, 'PUT', '/basket/abc/line/7');
    expect(line).toMatchObject({
      route: { handler: 'update-basket-line' },
      pathParameters: { basketGuid: 'abc', lineId: '7' },
    });
    expect(matchRoute(routes, 'POST', '/library/builder')).toMatchObject({
      route: { handler: 'get-items-builder-url' },
    });
    expect(matchRoute(routes, 'POST', '/library/multi/push')).toMatchObject({
      route: { handler: 'push-library-items' },
    });
    expect(matchRoute(routes, 'PATCH', '/baskets')).toBe('method-not-allowed');
    expect(matchRoute(routes, 'GET', '/nowhere')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/basket/')).toBeUndefined();
  });

  it('chooses the resource before the method, as API Gateway does: /library/push is never GET /library/{itemGuid}', () => {
    expect(matchRoute(routes, 'GET', '/library/3f2b9c0d8e7a4b1c9d0e1f2a3b4c5d6e')).toMatchObject({
      route: { handler: 'get-library-item' },
    });
    expect(matchRoute(routes, 'POST', '/library/push')).toMatchObject({ route: { handler: 'push-library-item' } });
    expect(matchRoute(routes, 'GET', '/library/push')).toBe('method-not-allowed');
    expect(matchRoute(routes, 'GET', '/library/builder')).toBe('method-not-allowed');
    expect(matchRoute(routes, 'GET', '/library/upload')).toBe('method-not-allowed');
    expect(matchRoute(routes, 'GET', '/builder/00000000000000000000000000000000')).toMatchObject({
      route: { handler: 'get-builder' },
      pathParameters: { token: '00000000000000000000000000000000' },
    });
  });
});

describe('two credentials on one resource', () => {
  it('routes GET /library/{itemGuid} (library key) and DELETE /library/{itemGuid} (bearer token) apart, and each policy allows only its own', () => {
    const guid = '3f2b9c0d8e7a4b1c9d0e1f2a3b4c5d6e';
    expect(matchRoute(routes, 'DELETE', `/library/${guid}`)).toMatchObject({
      route: { handler: 'delete-library-item', credential: 'user' },
    });
    expect(matchRoute(routes, 'GET', `/library/${guid}`)).toMatchObject({
      route: { handler: 'get-library-item', credential: 'library' },
    });
    expect(matchRoute(routes, 'GET', '/library')).toMatchObject({ route: { handler: 'list-library' } });
    expect(matchRoute(routes, 'GET', '/library/claim')).toBe('method-not-allowed');
    const user = policyFor({ userId: 'alice' }, arn('GET', '/library'));
    const library = policyFor({ apiKey: { id: 'k', name: 'app', scope: 'library' } }, arn('GET', `/library/${guid}`));
    expect(isAllowed(user, arn('DELETE', `/library/${guid}`))).toBe(true);
    expect(isAllowed(user, arn('GET', `/library/${guid}`))).toBe(false);
    expect(isAllowed(user, arn('POST', '/library/claim'))).toBe(true);
    expect(isAllowed(library, arn('GET', `/library/${guid}`))).toBe(true);
    expect(isAllowed(library, arn('DELETE', `/library/${guid}`))).toBe(false);
    expect(isAllowed(library, arn('GET', '/library'))).toBe(false);
    expect(isAllowed(library, arn('POST', '/library/claim'))).toBe(false);
  });
});

describe('authorizer policies', () => {
  it('match execute-api resources with * spanning path segments', () => {
    expect(resourceMatches('arn:x/stage/GET/basket/*', 'arn:x/stage/GET/basket/abc')).toBe(true);
    expect(resourceMatches('arn:x/stage/GET/basket/*', 'arn:x/stage/POST/basket/abc')).toBe(false);
    expect(resourceMatches('arn:x/stage/GET/basket', 'arn:x/stage/GET/baskets')).toBe(false);
  });

  it('allow exactly the routes of the credential kinds presented', () => {
    const user = policyFor({ userId: 'alice' }, arn('GET', '/baskets'));
    const library = policyFor({ apiKey: { id: 'k', name: 'app', scope: 'library' } }, arn('POST', '/library/push'));
    for (const route of routes.filter((r) => r.credential !== 'none')) {
      const path = route.path.replace(/\{[^}]+\}/g, '0123456789abcdef0123456789abcdef');
      expect(isAllowed(user, arn(route.method, path)), `${route.method} ${route.path}`).toBe(
        route.credential === 'user',
      );
      expect(isAllowed(library, arn(route.method, path)), `${route.method} ${route.path}`).toBe(
        route.credential === 'library' || route.credential === 'apiKey',
      );
    }
  });
});

/** A front on a free loopback port whose handlers are `handler`, with console.error captured into `logged`. */
async function withFront(handler: ProxyHandler, run: (base: string, logged: string[]) => Promise<void>): Promise<void> {
  const logged: string[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    logged.push(args.map(String).join(' '));
  });
  const front = createApiGatewayFront({
    routes,
    loadHandler: async () => handler,
    authorizer: async () => ({
      principalId: 'test',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: ['*'] }],
      },
    }),
    binaryMediaTypes: [],
    maxBodyBytes: 1024,
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(front.address() as AddressInfo).port}`, logged);
  } finally {
    spy.mockRestore();
    front.closeAllConnections();
    await new Promise((resolve) => front.close(resolve));
  }
}

describe("the local front's log", () => {
  it('names a failed request by its resource path, never the path (tokens, checkout ids) or the query', async () => {
    const failing: ProxyHandler = async () => {
      throw new Error('the handler failed');
    };
    await withFront(failing, async (base, logged) => {
      const token = '5e1f0c2b9a8d4e7f8a6b5c4d3e2f1a0b';
      const checkoutId = '0123456789abcdef0123456789abcdef';
      expect((await fetch(`${base}/builder/${token}?cursor=secret-cursor`)).status).toBe(500);
      expect((await fetch(`${base}/checkout/${checkoutId}/complete`, { method: 'POST' })).status).toBe(500);
      expect(logged).toEqual([
        expect.stringContaining('[local api] GET /builder/{token} failed:'),
        expect.stringContaining('[local api] POST /checkout/{checkoutId}/complete failed:'),
      ]);
      for (const secret of [token, checkoutId, 'secret-cursor']) expect(logged.join('\n')).not.toContain(secret);
    });
  });

  it("answers 500 and keeps serving when a handler's answer cannot be sent (a header Node refuses)", async () => {
    const unsendable: ProxyHandler = async () => ({ statusCode: 200, headers: { 'X-Broken': 'a\nb' }, body: '{}' });
    await withFront(unsendable, async (base, logged) => {
      for (const attempt of [1, 2]) {
        const answer = await fetch(`${base}/openapi.json`);
        expect(answer.status, `attempt ${attempt}`).toBe(500);
        expect(((await answer.json()) as { Error: { Code: string } }).Error.Code).toBe('InternalError');
      }
      expect(logged).toEqual([
        expect.stringContaining('[local api] GET /openapi.json answer failed:'),
        expect.stringContaining('[local api] GET /openapi.json answer failed:'),
      ]);
    });
  });

  it('logs a path no route takes as (no route)', () => {
    expect(loggedPath(routes, { method: 'GET', url: '/nowhere/0123456789abcdef' })).toBe('(no route)');
    expect(loggedPath(routes, { method: 'get', url: '/checkout/abc?x=1' })).toBe('/checkout/{checkoutId}');
  });
});
