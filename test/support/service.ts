/**
 * Test harness: starts the real local service (API Gateway front, authorizer, handlers, DynamoDB Local, s3rver)
 * on free loopback ports with temporary storage, and gives tests credentials and a small JSON client.
 * One service per test file: handler modules configure their SDK clients from the environment once.
 */
import { startLocalService, type LocalService, type LocalServiceOptions } from '../../lib/local/service.ts';
import { signLocalToken, type TokenOptions } from '../../lib/local/signing-keys.ts';
import { parseJsonOrUndefined } from './json.ts';
import type { ApiKeyScope } from '../../functions/auth/principal.ts';

export interface TestService extends LocalService {
  token(userId: string, options?: Omit<TokenOptions, 'userId'>): Promise<string>;
  apiKey(name: string, scope: ApiKeyScope): Promise<string>;
  /** Registers a project price (and a name, if given) through the catalog API (a `catalog` key) and returns its guid. */
  project(unitPrice: number, version?: number, name?: string): Promise<string>;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
}

export interface RequestOptions {
  token?: string;
  apiKey?: string;
  json?: unknown;
  body?: string | Buffer | Uint8Array;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (undefined when the body is not JSON). */
  body: any;
}

export async function startTestService(options: LocalServiceOptions = {}): Promise<TestService> {
  const service = await startLocalService({ port: 0, ...options });
  const { createApiKey } = await import('../../functions/store/api-key-store.ts');
  const { newGuid } = await import('../../functions/shared/ids.ts');
  let catalogKey: string | undefined;

  const request = async (method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    if (opts.apiKey) headers['X-SERVICE-API-Key'] = opts.apiKey;
    let body = opts.body;
    if (opts.json !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      body = JSON.stringify(opts.json);
    }
    const response = await fetch(`${service.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: parseJsonOrUndefined(text) };
  };

  const apiKey = async (name: string, scope: ApiKeyScope) =>
    (await createApiKey(`${name}-${newGuid().slice(0, 8)}`, scope, Date.now())).apiKey;

  return {
    ...service,
    token: (userId, tokenOptions = {}) => signLocalToken(service.keys, { userId, ...tokenOptions }),
    apiKey,
    async project(unitPrice, version = 1, name) {
      catalogKey ??= await apiKey('test-catalog', 'catalog');
      const guid = newGuid();
      const response = await request('PUT', `/project/${guid}`, {
        apiKey: catalogKey,
        json: { UnitPrice: unitPrice, Version: version, ...(name === undefined ? {} : { Name: name }) },
      });
      if (response.status !== 200) throw new Error(`project registration failed: ${response.status} ${response.text}`);
      return guid;
    },
    request,
  };
}
