/**
 * The HTTP adapter every handler is built with. It lower-cases header names, parses and validates the
 * path, query and JSON body against zod schemas (the one source of the request types), runs the
 * handler's domain call, and writes the JSON response. Every thrown error leaves as one JSON shape
 * (functions/http/errors.ts), with internals never exposed. Logs carry the Lambda context and the API
 * Gateway request id as correlation id.
 *
 * The handler is a middy chain with one small middleware of our own rather than the stock header
 * normalizer and Powertools' injectLambdaContext/logMetrics: those cost about 0.2 ms of CPU per request
 * (logMetrics serializes an empty metric set on every read), a fifth of a DynamoDB round trip
 * (BENCHMARKS.md, figure 2). Metrics are written when a change commits (functions/shared/metrics.ts), so
 * the adapter has none to flush. Early timeout is off: API Gateway's 29 s and the functions' timeouts bound
 * a request, and its per-request timer is not free.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { DomainError, forbidden } from '../shared/errors.ts';
import { withCorrelationId } from '../shared/correlation.ts';
import { logger } from '../shared/powertools.ts';
import { credentialsOf, fromAuthorizerContext, type ApiKeyScope, type Principal } from '../auth/principal.ts';
import { forbiddenMessage, refusalOf, type Refusal } from '../auth/refusal.ts';
import { withCors } from './cors.ts';
import { errorAnswer, errorResponse } from './errors.ts';
import { lowerCaseHeaders } from './headers.ts';
import { jsonResponse, parseJsonBody, validate } from './json.ts';

type Schema = z.ZodMiniType;
type Infer<S> = S extends Schema ? z.output<S> : undefined;

/** The route's credential kind (functions/routes.ts): a bearer token, an API key of that scope, or of any. */
type PrincipalKind = 'user' | 'apiKey' | ApiKeyScope | undefined;
type PrincipalOf<K extends PrincipalKind> = K extends 'user'
  ? Principal & { userId: string }
  : K extends ApiKeyScope | 'apiKey'
    ? Principal & { apiKey: NonNullable<Principal['apiKey']> }
    : Principal;

export interface EndpointSpec<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
  K extends PrincipalKind,
> {
  path?: P;
  query?: Q;
  /** JSON body schema. Leave out for routes without a body, or that read `event.body` themselves (multipart). */
  body?: B;
  /**
   * Which credential the route takes, as in the route table. The authorizer's policy already enforced it;
   * the handler checks again (defence in depth: a site route never serves a catalog key) and the
   * principal's type becomes non-optional.
   */
  principal?: K;
  /** The success body's schema: documentation (OpenAPI) and contract tests; not checked at run time. */
  response?: Schema;
  /**
   * Honour an `Idempotency-Key` header (POSTs that create something): a retry answers the first result.
   * Such a contract is served by `idempotentEndpoint` (functions/http/idempotency.ts), so that only its
   * handlers carry the idempotency code.
   */
  idempotent?: boolean;
}

export interface EndpointRequest<P, Q, B, K extends PrincipalKind = undefined> {
  path: P;
  query: Q;
  body: B;
  principal: PrincipalOf<K>;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  event: APIGatewayProxyEvent;
}

/**
 * Turns the handler's answer into the response: by default `answer()`, its JSON. Idempotency
 * (functions/http/idempotency.ts) passes one that runs `answer` at most once per key.
 */
export type Respond = (
  request: { principal: Principal; headers: Record<string, string | undefined>; event: APIGatewayProxyEvent },
  context: Context,
  answer: () => Promise<APIGatewayProxyResult>,
) => Promise<APIGatewayProxyResult>;

/** A handler's answer with a status other than 200 (a contract's `accepted` answer is 202). */
class StatusAnswer {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    this.status = status;
    this.body = body;
  }
}

export const withStatus = (status: number, body: unknown): StatusAnswer => new StatusAnswer(status, body);

/** A handler's answer that sends the client elsewhere: 307, the same method to `location`, never cached. */
class RedirectAnswer {
  readonly location: string;
  constructor(location: string) {
    this.location = location;
  }
}

export const redirectTo = (location: string): RedirectAnswer => new RedirectAnswer(location);

/** Builds a Lambda handler for one API Gateway REST (v1 proxy) route. */
export function endpoint<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  K extends PrincipalKind = undefined,
>(
  spec: EndpointSpec<P, Q, B, K>,
  run: (request: EndpointRequest<Infer<P>, Infer<Q>, Infer<B>, K>) => Promise<unknown>,
  respond?: Respond,
) {
  if (spec.idempotent && !respond)
    throw new Error('an idempotent contract is served by idempotentEndpoint (functions/http/idempotency.ts)');
  const core = async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    // The authorizer let a refused credential through so that its reason can be told (functions/auth/refusal.ts).
    const refusal = refusalOf(event.requestContext?.authorizer);
    if (refusal) return refusedCredentialAnswer(refusal);
    const principal = fromAuthorizerContext(event.requestContext?.authorizer);
    if (spec.principal !== undefined && !credentialsOf(principal).includes(spec.principal))
      throw forbidden(forbiddenMessage(spec.principal, principal));
    let headers: Record<string, string | undefined> | undefined;
    const request = {
      path: (spec.path ? validate(spec.path, event.pathParameters ?? {}, 'path') : undefined) as Infer<P>,
      query: (spec.query ? validate(spec.query, event.queryStringParameters ?? {}, 'query') : undefined) as Infer<Q>,
      body: (spec.body ? validate(spec.body, parseJsonBody(event), 'body') : undefined) as Infer<B>,
      principal: principal as PrincipalOf<K>,
      // Lower-cased on first use: most routes read no header.
      get headers() {
        return (headers ??= lowerCaseHeaders(event.headers));
      },
      event,
    };
    const answer = async () => {
      const result = await run(request);
      if (result instanceof RedirectAnswer)
        return { statusCode: 307, headers: { Location: result.location, 'Cache-Control': 'no-store' }, body: '' };
      return result instanceof StatusAnswer ? jsonResponse(result.status, result.body) : jsonResponse(200, result);
    };
    return respond ? respond(request, context, answer) : answer();
  };
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(httpMiddleware)
    .handler(core);
  // The work of this request, what it writes (outbox records, delivery messages) and its error line carry its id.
  return (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> =>
    withCorrelationId(event.requestContext?.requestId, () => handler(event, context));
}

function refusedCredentialAnswer(refusal: Refusal): APIGatewayProxyResult {
  logger.info('request refused', { status: 401, code: 'Unauthorized' });
  const answer = errorAnswer(401, 'Unauthorized', refusal.message);
  return refusal.challenge === undefined
    ? answer
    : { ...answer, headers: { ...answer.headers, 'WWW-Authenticate': refusal.challenge } };
}

/**
 * Shared by every endpoint: the Lambda context on the logger (the event itself is never logged: it holds the
 * caller's token or key), CORS headers and one error path.
 */
const httpMiddleware: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> = {
  before: (request) => {
    logger.addContext(request.context);
  },
  after: (request) => {
    request.response = withCors(request.response as APIGatewayProxyResult, request.event.headers);
  },
  onError: (request) => {
    const response = errorResponse(request.error);
    if (response.statusCode >= 500) logger.error('request failed', request.error as Error);
    else logger.info('request refused', { status: response.statusCode, code: (request.error as DomainError).code });
    request.response = withCors(response, request.event.headers);
  },
};
