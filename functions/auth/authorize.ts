/**
 * The answer of the Lambda REQUEST authorizer (functions/handlers/authorizer.ts) behind every protected
 * route. It verifies the bearer token and/or the `X-SERVICE-API-Key` header and answers one of
 * (docs/design.md, Credential failures):
 *
 * - no credential header at all: throw "Unauthorized" (API Gateway's static 401, which says what to send);
 * - a credential that is refused (malformed, expired, wrong keys, issuer or audience, unknown or revoked key,
 *   a credential under the wrong header): Allow with `{ refusal, challenge? }` and no identity, so that the
 *   route's handler answers 401 with the reason (functions/auth/refusal.ts);
 * - a valid credential of another kind than the route takes: Deny with `{ forbidden }`, which API Gateway's
 *   403 names;
 * - otherwise a policy that allows the routes of that credential, and a context (user id, key id, name,
 *   scope) that API Gateway hands to the handler.
 *
 * For an API key it also answers `usageIdentifierKey` (API key source AUTHORIZER): the value of the API
 * Gateway API key that stands for this key in the usage plan, which throttles per key. That value is the
 * key's SHA-256 hash, the same one that keys its DynamoDB item: it is never sent by clients (API Gateway
 * takes it only from the authorizer), so it need not be secret, and no mapping has to be stored. A refusal
 * on an API-key route answers the one refused-credentials key instead (REFUSED_CREDENTIALS_USAGE_KEY):
 * without one API Gateway would answer 403 INVALID_API_KEY before the handler could say why.
 *
 * One credential per answer: API Gateway caches the answer by the route's own header (Authorization for
 * user routes, X-SERVICE-API-Key for key routes) and reuses it for every route of the same authorizer, one
 * per credential kind (lib/constructs/authorizers.ts), so nothing in the answer may come from the other
 * header, and the answer may name the route's kind. The route's own header decides; only when it is absent
 * is the other one checked, so a valid credential of the wrong kind is still told apart (403) from an
 * invalid one (401).
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { dirname } from 'node:path';
import { verifyBearerToken } from './jwt.ts';
import { policyFor, wholeApiPolicy } from './policy.ts';
import { credentialsOf, toAuthorizerContext, type Principal } from './principal.ts';
import { forbiddenMessage, bearerChallenge, toRefusalContext, type Refusal } from './refusal.ts';
import { bearerTokenOf, misplacedCredentialOf, misplacedTokenOf } from './credential-headers.ts';
import { tokenRefusalMessage } from './token-refusal.ts';
import { findApiKey, hashApiKey } from '../store/api-key-store.ts';
import { config } from '../shared/config.ts';
import { logger } from '../shared/powertools.ts';
import { METRIC } from '../shared/metric-names.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { routes, takesApiKey, type Route } from '../routes.ts';
import { headerOf } from '../http/headers.ts';

type Answer = APIGatewayAuthorizerResult;

/** Which credential the answer is built from: the route's own kind when its header was sent, else the other. */
function credentialToCheck(route: Route, sent: { token: boolean; key: boolean }): 'token' | 'key' | undefined {
  const own = route.credential === 'user' ? 'token' : 'key';
  const other = own === 'token' ? 'key' : 'token';
  return sent[own] ? own : sent[other] ? other : undefined;
}

const UNKNOWN_KEY: Refusal = { message: 'The API key is unknown or revoked.' };

/** Locally the trusted keys are the JWKS file `npm start` keeps at DATA_DIR/keys/jwks.json (lib/local/signing-keys.ts). */
const localDataDir = () => {
  const file = config.jwtJwksUrl ? undefined : config.jwtJwksFile;
  return file === undefined ? undefined : dirname(dirname(file));
};

async function tokenPrincipal(authorization: string): Promise<Principal | Refusal> {
  const bearer = bearerTokenOf(authorization);
  if ('refused' in bearer) return bearer.refused;
  const verified = await verifyBearerToken(bearer.token);
  if ('userId' in verified) return { userId: verified.userId };
  logger.info('bearer token refused', { reason: verified.refused.reason });
  // The issuer's keys out of reach refuse every bearer token whose key is not cached: alarmed.
  if (verified.refused.reason === 'unverifiable') emitMetrics({ [METRIC.IdentityKeysUnreachable]: 1 });
  const message = tokenRefusalMessage(verified.refused, { localDataDir: localDataDir() });
  return { message, challenge: bearerChallenge(message) };
}

async function keyPrincipal(apiKey: string): Promise<Principal | Refusal> {
  const misplaced = misplacedTokenOf(apiKey);
  if (misplaced) return misplaced;
  const record = await findApiKey(apiKey.trim());
  if (!record) {
    logger.info('API key refused');
    return UNKNOWN_KEY;
  }
  return { apiKey: { id: record.keyId, name: record.name, scope: record.scope } };
}

/** Lets the request through to its handler, which answers 401 with the reason; it carries no identity. */
function refuse(route: Route, event: APIGatewayRequestAuthorizerEvent, refusal: Refusal): Answer {
  const usageIdentifierKey = takesApiKey(route) ? config.refusedCredentialsUsageKey : undefined;
  return {
    principalId: 'refused',
    policyDocument: wholeApiPolicy('Allow', event.methodArn),
    context: toRefusalContext(refusal),
    ...(usageIdentifierKey ? { usageIdentifierKey } : {}),
  };
}

export async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<Answer> {
  const authorization = headerOf(event.headers, 'authorization');
  const apiKey = headerOf(event.headers, 'x-service-api-key');
  const route = routes.find((candidate) => candidate.method === event.httpMethod && candidate.path === event.resource);
  if (route === undefined || route.credential === 'none') throw new Error('Unauthorized');
  const checked = credentialToCheck(route, { token: authorization !== undefined, key: apiKey !== undefined });
  if (checked === undefined) {
    const misplaced = misplacedCredentialOf(event.headers);
    if (misplaced) return refuse(route, event, misplaced);
    throw new Error('Unauthorized');
  }

  const found =
    checked === 'token' ? await tokenPrincipal(authorization as string) : await keyPrincipal(apiKey as string);
  if ('message' in found) return refuse(route, event, found);
  const principal = found;
  const principalId = principal.userId ?? `apikey:${principal.apiKey?.id}`;
  if (!credentialsOf(principal).includes(route.credential))
    return {
      principalId,
      policyDocument: wholeApiPolicy('Deny', event.methodArn),
      context: { forbidden: forbiddenMessage(route.credential, principal) },
    };

  return {
    principalId,
    policyDocument: policyFor(principal, event.methodArn),
    context: toAuthorizerContext(principal),
    ...(principal.apiKey ? { usageIdentifierKey: hashApiKey((apiKey as string).trim()) } : {}),
  };
}
