/**
 * The HTTP adapter every handler is built with. It normalizes headers, parses and validates the path,
 * query and JSON body against zod schemas (the one source of the request types), runs the handler's
 * domain call, and writes the JSON response. Every thrown error leaves as one JSON shape:
 * `{ "Error": { "Code", "Message" } }`, with internals never exposed.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { z } from 'zod';
import { ApiError, badRequest, forbidden, isTransientAwsError, serviceUnavailable } from './errors.ts';
import { escapeDateSolidus } from './dates.ts';
import { logger, metrics } from './powertools.ts';
import { fromAuthorizerContext, type Principal } from '../auth/principal.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

type Schema = z.ZodType;
type Infer<S> = S extends Schema ? z.output<S> : undefined;

type PrincipalKind = 'user' | 'apiKey' | undefined;
type PrincipalOf<K extends PrincipalKind> = K extends 'user'
  ? Principal & { userId: string }
  : K extends 'apiKey'
    ? Principal & { apiKey: NonNullable<Principal['apiKey']> }
    : Principal;

export interface EndpointSpec<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined, K extends PrincipalKind> {
  path?: P;
  query?: Q;
  /** JSON body schema. Leave out for routes without a body, or that read `event.body` themselves (multipart). */
  body?: B;
  /** Which principal the handler needs; the authorizer already enforced it, this makes the type non-optional. */
  principal?: K;
  /** The success body's schema: documentation (OpenAPI) and contract tests; not checked at run time. */
  response?: Schema;
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

function parseJsonBody(event: APIGatewayProxyEvent): unknown {
  const text = bodyText(event);
  if (text.trim() === '') throw badRequest('InvalidJson', 'body: a JSON object is required.');
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('InvalidJson', 'body: not valid JSON.');
  }
}

/** Builds a Lambda handler for one API Gateway REST (v1 proxy) route. */
export function endpoint<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  K extends PrincipalKind = undefined,
>(spec: EndpointSpec<P, Q, B, K>, run: (request: EndpointRequest<Infer<P>, Infer<Q>, Infer<B>, K>) => Promise<unknown>) {
  const core = async (event: APIGatewayProxyEvent, _context: Context): Promise<APIGatewayProxyResult> => {
    const principal = fromAuthorizerContext(event.requestContext?.authorizer);
    if (spec.principal === 'user' && principal.userId === undefined) throw forbidden('This endpoint takes a bearer token.');
    if (spec.principal === 'apiKey' && principal.apiKey === undefined) throw forbidden('This endpoint takes an API key.');
    const request = {
      path: (spec.path ? validate(spec.path, event.pathParameters ?? {}, 'path') : undefined) as Infer<P>,
      query: (spec.query ? validate(spec.query, event.queryStringParameters ?? {}, 'query') : undefined) as Infer<Q>,
      body: (spec.body ? validate(spec.body, parseJsonBody(event), 'body') : undefined) as Infer<B>,
      principal: principal as PrincipalOf<K>,
      headers: event.headers as Record<string, string | undefined>,
      event,
    };
    return jsonResponse(200, await run(request));
  };

  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(httpHeaderNormalizer())
    .use(injectLambdaContext(logger, { correlationIdPath: 'requestContext.requestId', resetKeys: true }))
    .use(logMetrics(metrics))
    .use({
      onError: async (request) => {
        request.response = errorResponse(request.error);
        const status = request.response.statusCode;
        if (status >= 500) logger.error('request failed', request.error as Error);
        else logger.info('request refused', { status, code: (request.error as ApiError).code });
      },
    })
    .handler(core);
}
