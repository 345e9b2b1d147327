/**
 * One authorizer function (functions/handlers/authorizer.ts, the same code the local front calls) behind
 * two API Gateway REQUEST authorizers, one per credential header:
 *
 * - `user` routes: identity source `Authorization`;
 * - API key routes (`library`, `site`, `catalog`, `fulfilment`): identity source `X-SERVICE-API-Key`.
 *
 * API Gateway answers 401 without calling an authorizer when one of its identity sources is missing, so a
 * single authorizer naming both headers would refuse every request that carries only one. With one header
 * each, the cache key is that header's value, and the cached policy is safe to reuse on other routes
 * because it already lists every route that credential may call (functions/auth/policy.ts) and nothing else.
 *
 * Consequence: a credential of the wrong kind on a route whose header is absent (an API key on /baskets)
 * is 401 in AWS, where the local front, which always calls the authorizer, answers 403. With
 * `authorizerCacheSeconds` 0 the identity sources are dropped, the authorizer runs on every request and AWS
 * answers 403 like the local front, at the price of one authorizer invocation per request.
 */
import { Duration } from 'aws-cdk-lib';
import { IdentitySource, RequestAuthorizer, type IAuthorizer } from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { authorizerTableGrant, type Credential } from '../../functions/routes.ts';
import { HandlerFunction, ROUTELESS_FUNCTIONS } from './handler-function.ts';

export const API_KEY_HEADER = 'X-SERVICE-API-Key';

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
  readonly apiKey: RequestAuthorizer;

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
    this.apiKey = authorizer('ApiKey', API_KEY_HEADER);
  }

  /** The API Gateway authorizer for a route's credential kind; none for public routes. */
  for(credential: Credential): IAuthorizer | undefined {
    if (credential === 'none') return undefined;
    return credential === 'user' ? this.user : this.apiKey;
  }
}
