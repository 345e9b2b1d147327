/**
 * The HTTP adapter every handler is built with. It lower-cases header names, parses and validates the
 * path, query and JSON body against zod schemas (the one source of the request types), runs the
 * handler's domain call, and writes the JSON response. Every thrown error leaves as one JSON shape:
 * `{ "Error": { "Code", "Message" } }`, with internals never exposed. Logs carry the Lambda context and
 * the API Gateway request id as correlation id; metrics a request added are flushed as it ends.
 *
 * The handler is a middy chain with one small middleware of our own rather than the stock header
 * normalizer and Powertools' injectLambdaContext/logMetrics: those cost about 0.2 ms of CPU per request
 * (logMetrics serializes an empty metric set on every read), a fifth of a DynamoDB round trip
 * (BENCHMARKS.md, figure 2). Early timeout is off: API Gateway's 29 s and the functions' timeouts bound
 * a request, and its per-request timer is not free.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { ApiError, badRequest, forbidden, isTransientAwsError, serviceUnavailable } from './errors.ts';
import { escapeDateSolidus } from './dates.ts';
import { holdsExactly } from './decimal.ts';
import { logger, metrics } from './powertools.ts';
import { config } from './config.ts';
import { fromAuthorizerContext, type ApiKeyScope, type Principal } from '../auth/principal.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

// zod/mini has no messages of its own; the English ones name what was expected ("expected number, received string").
z.config(en());

type Schema = z.ZodMiniType;
type Infer<S> = S extends Schema ? z.output<S> : undefined;

/** The route's credential kind (functions/routes.ts): a bearer token, or an API key of that scope. */
type PrincipalKind = 'user' | ApiKeyScope | undefined;
type PrincipalOf<K extends PrincipalKind> = K extends 'user'
  ? Principal & { userId: string }
  : K extends ApiKeyScope
    ? Principal & { apiKey: NonNullable<Principal['apiKey']> }
    : Principal;

export interface EndpointSpec<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined, K extends PrincipalKind> {
  path?: P;
  query?: Q;
  /** JSON body schema. Leave out for routes without a body, or that read `event.body` themselves (multipart). */
  body?: B;
  /**
   * Which credential the route takes, as in the route table. The authorizer's policy already enforced it;
   * the handler checks again (defence in depth: an internal route never serves a library key) and the
   * principal's type becomes non-optional.
   */
  principal?: K;
  /** The success body's schema: documentation (OpenAPI) and contract tests; not checked at run time. */
  response?: Schema;
  /**
   * Honour an `Idempotency-Key` header (POSTs that create something): a retry answers the first result.
   * Such a contract is served by `idempotentEndpoint` (functions/shared/idempotency.ts), so that only its
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

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': JSON_CONTENT_TYPE, ...headers },
    body: escapeDateSolidus(JSON.stringify(body)),
  };
}

export function errorResponse(error: unknown): APIGatewayProxyResult {
  const known = error instanceof ApiError ? error : isTransientAwsError(error) ? serviceUnavailable('The service is busy right now; retry the request shortly.') : undefined;
  if (known) {
    const body = { Error: { Code: known.code, Message: known.message, ...known.details } };
    return jsonResponse(known.status, body, known.headers);
  }
  // Every write is a conditional, repeatable step, so an unexpected failure leaves nothing a retry would double.
  return jsonResponse(500, { Error: { Code: 'InternalError', Message: 'The request could not be completed. It is safe to retry.', Retryable: true } }, { 'Retry-After': '1' });
}

/** Request headers a browser may send cross-origin; API Gateway's preflight and the local front use this list. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-SERVICE-API-Key', 'Idempotency-Key'];
const CORS_EXPOSED_HEADERS = 'Retry-After, Idempotent-Replayed, x-amzn-RequestId';

/**
 * CORS headers for a response to a request from `origin`, per CORS_ALLOWED_ORIGINS (none by default).
 * Credentials are never allowed, for `*` or any origin: the API takes tokens and keys in headers, not
 * cookies, so no browser needs credentialed requests.
 */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  const allowed = config.corsAllowedOrigins;
  if (allowed.length === 0) return {};
  if (allowed.includes('*')) return origin === undefined ? {} : { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS };
  // The answer depends on Origin, so caches must key on it even when this origin gets nothing.
  if (origin === undefined || !allowed.includes(origin)) return { Vary: 'Origin' };
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS, Vary: 'Origin' };
}

/** The answer to a CORS preflight for a path that takes `methods` (the local front; API Gateway in AWS). */
export function preflightHeaders(origin: string | undefined, methods: readonly string[]): Record<string, string> {
  const headers = corsHeaders(origin);
  if (!headers['Access-Control-Allow-Origin']) return headers;
  return { ...headers, 'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '), 'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '), 'Access-Control-Max-Age': '600' };
}

const headerValue = (headers: Record<string, string | undefined> | null | undefined, name: string): string | undefined =>
  Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];

/** The headers with lower-case names, as own properties (a `__proto__` header stays a plain key). */
const lowerCaseNames = (headers: Record<string, string | undefined> | null | undefined): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));

export function withCors(response: APIGatewayProxyResult, requestHeaders: Record<string, string | undefined> | null | undefined): APIGatewayProxyResult {
  return { ...response, headers: { ...response.headers, ...corsHeaders(headerValue(requestHeaders, 'origin')) } };
}

function describeIssue(where: string, issue: z.core.$ZodIssue): string {
  const field = issue.path.length > 0 ? issue.path.join('.') : where;
  return `${field}: ${issue.message}`;
}

export function validate<S extends Schema>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues;
    const first = issues[0];
    throw badRequest('ValidationFailed', first ? describeIssue(where, first) : `${where}: invalid`, {
      Fields: issues.map((issue) => (issue.path.length > 0 ? issue.path.join('.') : where)),
    });
  }
  return result.data;
}

export function bodyText(event: APIGatewayProxyEvent): string {
  if (event.body === null || event.body === undefined) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** Node's reviver sees each primitive's source text (JSON.parse source text access). */
type Reviver = (this: unknown, key: string, value: unknown, context: { source?: string }) => unknown;

/**
 * Refuses a number whose text says more than the double it parses to (0.1000000000000000000001 is not
 * 0.1): every number the contracts see then means exactly what the client wrote, and money can be
 * decided on its decimal text (functions/shared/money.ts).
 */
const exactNumbers: Reviver = (key, value, context) => {
  if (typeof value === 'number' && context.source !== undefined && !holdsExactly(value, context.source)) {
    throw badRequest('ValidationFailed', `${key || 'body'}: the number ${context.source.slice(0, 40)} has more digits than can be held exactly.`, { Fields: [key || 'body'] });
  }
  return value;
};

function parseJsonBody(event: APIGatewayProxyEvent): unknown {
  const text = bodyText(event);
  if (text.trim() === '') throw badRequest('InvalidJson', 'body: a JSON object is required.');
  try {
    return JSON.parse(text, exactNumbers as Parameters<typeof JSON.parse>[1]);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw badRequest('InvalidJson', 'body: not valid JSON.');
  }
}

/**
 * Turns the handler's answer into the response: by default `answer()`, its JSON. Idempotency
 * (functions/shared/idempotency.ts) passes one that runs `answer` at most once per key.
 */
export type Respond = (
  request: { principal: Principal; headers: Record<string, string | undefined>; event: APIGatewayProxyEvent },
  context: Context,
  answer: () => Promise<APIGatewayProxyResult>,
) => Promise<APIGatewayProxyResult>;

/** Builds a Lambda handler for one API Gateway REST (v1 proxy) route. */
export function endpoint<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  K extends PrincipalKind = undefined,
>(spec: EndpointSpec<P, Q, B, K>, run: (request: EndpointRequest<Infer<P>, Infer<Q>, Infer<B>, K>) => Promise<unknown>, respond?: Respond) {
  if (spec.idempotent && !respond) throw new Error('an idempotent contract is served by idempotentEndpoint (functions/shared/idempotency.ts)');
  const core = async (event: APIGatewayProxyEvent, context: Context, headers: Record<string, string | undefined>): Promise<APIGatewayProxyResult> => {
    const principal = fromAuthorizerContext(event.requestContext?.authorizer);
    if (spec.principal === 'user' && principal.userId === undefined) throw forbidden('This endpoint takes a bearer token.');
    if (spec.principal !== undefined && spec.principal !== 'user' && principal.apiKey?.scope !== spec.principal) throw forbidden(`This endpoint takes an API key of scope ${spec.principal}.`);
    const request = {
      path: (spec.path ? validate(spec.path, event.pathParameters ?? {}, 'path') : undefined) as Infer<P>,
      query: (spec.query ? validate(spec.query, event.queryStringParameters ?? {}, 'query') : undefined) as Infer<Q>,
      body: (spec.body ? validate(spec.body, parseJsonBody(event), 'body') : undefined) as Infer<B>,
      principal: principal as PrincipalOf<K>,
      headers,
      event,
    };
    const answer = async () => jsonResponse(200, await run(request));
    return respond ? respond(request, context, answer) : answer();
  };

  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(httpMiddleware)
    .handler((event, context) => core(event, context, lowerCaseNames(event.headers)));
}

const flushMetrics = (): void => {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
};

/**
 * Shared by every endpoint: the Lambda context and correlation id on the logger (the event itself is never
 * logged: it holds the caller's token or key), CORS headers, one error path, and a metrics flush only when
 * the request added metrics.
 */
const httpMiddleware: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> = {
  before: (request) => {
    logger.addContext(request.context);
    logger.setCorrelationId(request.event.requestContext?.requestId);
  },
  after: (request) => {
    request.response = withCors(request.response as APIGatewayProxyResult, request.event.headers);
    flushMetrics();
  },
  onError: (request) => {
    const response = errorResponse(request.error);
    if (response.statusCode >= 500) logger.error('request failed', request.error as Error);
    else logger.info('request refused', { status: response.statusCode, code: (request.error as ApiError).code });
    request.response = withCors(response, request.event.headers);
    flushMetrics();
  },
};
