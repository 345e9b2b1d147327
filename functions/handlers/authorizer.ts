/**
 * The Lambda REQUEST authorizer for every protected route. It verifies the bearer token and/or the
 * `X-SERVICE-API-Key` header, then answers a policy that allows the routes of those credentials and a
 * context (user id, key id, name, scope) that API Gateway hands to the handler. Missing or invalid
 * credentials: throw "Unauthorized" (API Gateway answers 401). Valid but not allowed here: the policy
 * leaves the route out (403).
 *
 * For an API key it also answers `usageIdentifierKey` (API key source AUTHORIZER): the value of the API
 * Gateway API key that stands for this key in the usage plan, which throttles per key. That value is the
 * key's SHA-256 hash, the same one that keys its DynamoDB item: it is never sent by clients (API Gateway
 * takes it only from the authorizer), so it need not be secret, and no mapping has to be stored.
 *
 * One credential per answer: API Gateway caches the answer by the route's own header (Authorization for
 * user routes, X-SERVICE-API-Key for key routes) and reuses it for every request with that header value,
 * so nothing in the answer, the 401 included, may come from the other header. The route's own header
 * decides; only when it is absent is the other one checked, so a valid credential of the wrong kind is
 * still told apart (403) from an invalid one (401).
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { verifyBearerToken } from '../auth/jwt.ts';
import { policyFor } from '../auth/policy.ts';
import { toAuthorizerContext, type Principal } from '../auth/principal.ts';
import { findApiKey, hashApiKey } from '../store/api-key-store.ts';
import { logger } from '../shared/powertools.ts';
import { routes, type Route } from '../routes.ts';
import { headerOf } from '../http/headers.ts';

/** Which credential the answer is built from: the route's own kind when its header was sent, else the other. */
function credentialToCheck(route: Route, sent: { token: boolean; key: boolean }): 'token' | 'key' | undefined {
  const own = route.credential === 'user' ? 'token' : 'key';
  const other = own === 'token' ? 'key' : 'token';
  return sent[own] ? own : sent[other] ? other : undefined;
}

export async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const authorization = headerOf(event.headers, 'authorization');
  const apiKey = headerOf(event.headers, 'x-service-api-key');
  const route = routes.find((candidate) => candidate.method === event.httpMethod && candidate.path === event.resource);
  const checked = route && credentialToCheck(route, { token: authorization !== undefined, key: apiKey !== undefined });
  if (checked === undefined) throw new Error('Unauthorized');

  const principal: Principal = {};
  let usageIdentifierKey: string | undefined;
  if (checked === 'token' && authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const verified = match?.[1] ? await verifyBearerToken(match[1]) : { error: 'not a bearer token' };
    if ('error' in verified) {
      logger.info('bearer token refused', { reason: verified.error });
      throw new Error('Unauthorized');
    }
    principal.userId = verified.userId;
  }
  if (checked === 'key' && apiKey !== undefined) {
    const record = await findApiKey(apiKey.trim());
    if (!record) {
      logger.info('API key refused');
      throw new Error('Unauthorized');
    }
    principal.apiKey = { id: record.keyId, name: record.name, scope: record.scope };
    usageIdentifierKey = hashApiKey(apiKey.trim());
  }

  return {
    principalId: principal.userId ?? `apikey:${principal.apiKey?.id}`,
    policyDocument: policyFor(principal, event.methodArn),
    context: toAuthorizerContext(principal),
    ...(usageIdentifierKey ? { usageIdentifierKey } : {}),
  };
}

export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> =>
  authorize(event);
