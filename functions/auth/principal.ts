/**
 * Who is calling: what the authorizer found in the credentials, flattened into the string-only context
 * API Gateway passes to handlers as `requestContext.authorizer`, and read back from it.
 */
import type { Credential } from '../routes.ts';

/**
 * An API key's scope: which routes it opens (functions/routes.ts). One scope per kind of holder, so a key
 * extracted from one holder opens only that holder's routes (docs/security.md, Authorization matrix):
 * `library` client apps; `site` the checkout and product builder site; `catalog` the pricing system;
 * `fulfilment` the order-processing systems.
 */
export const API_KEY_SCOPES = ['library', 'site', 'catalog', 'fulfilment'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const isApiKeyScope = (value: unknown): value is ApiKeyScope =>
  (API_KEY_SCOPES as readonly unknown[]).includes(value);

export interface Principal {
  /** Subject of a verified bearer token. */
  userId?: string;
  apiKey?: { id: string; name: string; scope: ApiKeyScope };
}

/** The route credential kinds (functions/routes.ts) a principal's credentials satisfy. */
export function credentialsOf(principal: Principal): Credential[] {
  const kinds: Credential[] = [];
  if (principal.userId !== undefined) kinds.push('user');
  if (principal.apiKey) kinds.push(principal.apiKey.scope, 'apiKey');
  return kinds;
}

export type AuthorizerContext = Record<string, string>;

export function toAuthorizerContext(principal: Principal): AuthorizerContext {
  const context: AuthorizerContext = {};
  if (principal.userId !== undefined) context.userId = principal.userId;
  if (principal.apiKey) {
    context.apiKeyId = principal.apiKey.id;
    context.apiKeyName = principal.apiKey.name;
    context.apiKeyScope = principal.apiKey.scope;
  }
  return context;
}

export function fromAuthorizerContext(context: Record<string, unknown> | null | undefined): Principal {
  const principal: Principal = {};
  if (!context) return principal;
  if (typeof context.userId === 'string' && context.userId !== '') principal.userId = context.userId;
  const { apiKeyId, apiKeyName, apiKeyScope } = context;
  if (typeof apiKeyId === 'string' && typeof apiKeyName === 'string' && isApiKeyScope(apiKeyScope)) {
    principal.apiKey = { id: apiKeyId, name: apiKeyName, scope: apiKeyScope };
  }
  return principal;
}
