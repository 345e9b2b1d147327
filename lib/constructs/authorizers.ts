/**
 * One authorizer function (functions/handlers/authorizer.ts, the same code the local front calls) behind
 * one API Gateway REQUEST authorizer per route credential kind:
 *
 * - `user` routes: identity source `Authorization`;
 * - API key routes, one authorizer per scope (`library`, `site`, `catalog`, `fulfilment`) and one for the
 *   routes that take a key of any scope (`apiKey`: webhooks): identity source `X-SERVICE-API-Key`.
 *
 * API Gateway caches an answer per authorizer and identity-source value, and reuses it on every route of
 * that authorizer. With one authorizer per kind, every route an answer is reused on takes the same kind, so
 * the answer may name it: the Deny of a valid credential of another kind carries the 403's message
 * (`forbidden`, which the ACCESS_DENIED gateway response substitutes), and the cached Allow of a valid
 * credential already lists every route that credential may call (functions/auth/policy.ts) and nothing else.
 * A refused credential is allowed through with a `refusal` context that its handler answers 401 with; on
 * API-key routes that answer names the one refused-credentials API key (REFUSED_CREDENTIALS_USAGE_KEY,
 * registered in the library usage plan by lib/constructs/api.ts), without which API Gateway would answer
 * 403 INVALID_API_KEY first.
 *
 * API Gateway answers its static 401 (UNAUTHORIZED) without calling an authorizer when its identity source
 * is missing, so a single authorizer naming both headers would refuse every request that carries only one.
 * Consequence: a credential of the wrong kind on a route whose header is absent (an API key on /baskets,
 * an API key under `x-api-key`) gets that static 401, which names both headers, in AWS, where the local
 * front, which always calls the authorizer, answers 403 naming what the route takes (or a 401 naming the
 * header to use). With `authorizerCacheSeconds` 0 the identity sources are dropped, the authorizer runs on
 * every request and AWS answers like the local front, at the price of one authorizer invocation per request.
 */
import { Duration } from 'aws-cdk-lib';
import { IdentitySource, RequestAuthorizer, type IAuthorizer } from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../functions/auth/principal.ts';
import { API_KEY_HEADER } from '../../functions/auth/refusal.ts';
import { authorizerTableGrant, type Credential } from '../../functions/routes.ts';
import { HandlerFunction } from './handler-function.ts';
import { ROUTELESS_FUNCTIONS } from './routeless-functions.ts';

/**
 * The value of the API Gateway API key refused credentials are counted under on API-key routes. Not a
 * secret: with API key source AUTHORIZER, API Gateway takes usage keys from the authorizer only, never from
 * a client. At least 20 characters, as API Gateway requires.
 */
export const refusedCredentialsKeyValue = (namePrefix: string) => `${namePrefix}-refused-credentials`;

export interface AuthorizersProps {
  namePrefix: string;
  table: ITable;
  jwtIssuer: string;
  jwtAudience: string;
  jwtClientIds: string;
  jwtMaxAgeSeconds: number;
  jwtJwksUrl: string;
  cacheSeconds: number;
  logRetention: RetentionDays;
}

export class Authorizers extends Construct {
  readonly handlerFunction: HandlerFunction;
  readonly user: RequestAuthorizer;
  readonly apiKey: Record<ApiKeyScope, RequestAuthorizer>;
  readonly anyApiKey: RequestAuthorizer;

  constructor(scope: Construct, id: string, props: AuthorizersProps) {
    super(scope, id);
    this.handlerFunction = new HandlerFunction(this, 'Authorizer', {
      ...ROUTELESS_FUNCTIONS.authorizer,
      namePrefix: props.namePrefix,
      logRetention: props.logRetention,
      environment: {
        JWT_ISSUER: props.jwtIssuer,
        JWT_JWKS_URL: props.jwtJwksUrl,
        JWT_MAX_AGE_SECONDS: String(props.jwtMaxAgeSeconds),
        REFUSED_CREDENTIALS_USAGE_KEY: refusedCredentialsKeyValue(props.namePrefix),
        ...(props.jwtAudience !== '' ? { JWT_AUDIENCE: props.jwtAudience } : {}),
        ...(props.jwtClientIds !== '' ? { JWT_CLIENT_IDS: props.jwtClientIds } : {}),
      },
    });
    // API key lookup only: a GetItem by the key's hash.
    this.handlerFunction.grantTable(props.table, authorizerTableGrant);

    const cached = props.cacheSeconds > 0;
    const authorizer = (name: string, header: string) =>
      new RequestAuthorizer(this, name, {
        authorizerName: `${props.namePrefix}-${name.toLowerCase()}`,
        handler: this.handlerFunction.function,
        identitySources: cached ? [IdentitySource.header(header)] : [],
        resultsCacheTtl: Duration.seconds(props.cacheSeconds),
      });
    this.user = authorizer('Bearer', 'Authorization');
    // The library scope's keeps the construct id of the one key authorizer before scopes had their own.
    this.apiKey = Object.fromEntries(
      API_KEY_SCOPES.map((scope) => [
        scope,
        authorizer(scope === 'library' ? 'ApiKey' : `ApiKey-${scope}`, API_KEY_HEADER),
      ]),
    ) as Record<ApiKeyScope, RequestAuthorizer>;
    this.anyApiKey = authorizer('ApiKey-any', API_KEY_HEADER);
  }

  /** The API Gateway authorizer for a route's credential kind; none for public routes. */
  for(credential: Credential): IAuthorizer | undefined {
    if (credential === 'none') return undefined;
    if (credential === 'user') return this.user;
    return credential === 'apiKey' ? this.anyApiKey : this.apiKey[credential];
  }
}
