/**
 * A local API Gateway (REST, v1 proxy integration) in front of the real handlers. Each HTTP request is
 * matched against the route table, turned into the event API Gateway would send, passed through the
 * REQUEST authorizer with the same policy evaluation (401 when it refuses, 403 when its policy leaves
 * the route out), throttled per API key and per user (429, like a usage plan), and handed to the
 * route's handler with the authorizer context in `requestContext.authorizer`. It answers CORS
 * preflights (OPTIONS) itself, as API Gateway does in AWS, and adds CORS headers to its own answers only:
 * a handler's answer passes as the handler wrote it, so one that forgot them fails here as in AWS. Like API Gateway it authorizes before it
 * reads the body, and reads (and discards) the body of a request it refuses before answering, so a
 * client still sending a large body gets the JSON error, not a reset.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import type { Route } from '../../functions/routes.ts';
import { isAllowed, type PolicyDocument } from '../../functions/auth/policy.ts';
import { preflightHeaders, withCors } from '../../functions/http/cors.ts';
import { errorAnswer, errorResponse } from '../../functions/http/errors.ts';
import { gatewayAnswer } from '../../functions/http/gateway-answers.ts';
import { JSON_CONTENT_TYPE } from '../../functions/http/json.ts';
import { DomainError, payloadTooLarge } from '../../functions/shared/errors.ts';
import { callersOf, Throttle, throttleSettingsFromEnv, type ThrottleSettings } from './throttle.ts';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type RequestAuthorizer = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

export interface ApiGatewayFrontOptions {
  routes: readonly Route[];
  loadHandler: (name: string) => Promise<ProxyHandler>;
  authorizer: RequestAuthorizer;
  binaryMediaTypes: readonly string[];
  /** API Gateway's payload limit is 10 MB; Lambda's synchronous one is 6 MB. */
  maxBodyBytes: number;
  stage?: string;
  /** Called before routing; may answer the request itself by returning a result. */
  beforeRoute?: (request: IncomingMessage) => APIGatewayProxyResult | undefined;
  /** Per-caller limits; default: THROTTLE_RATE_PER_SECOND / THROTTLE_BURST from the environment. */
  throttle?: ThrottleSettings;
}

const API_ID = 'local';
/** What the front reads and throws away of a body it answers without (API Gateway's payload limit). */
const DISCARD_LIMIT_BYTES = 10 * 1024 * 1024;
const ACCOUNT = '000000000000';
const REGION = 'local';

interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string> | null;
}

/** The path parameters of `path` under `template`, or undefined when it does not match. */
function matchTemplate(template: string, segments: string[]): Record<string, string> | undefined {
  const parts = template.split('/').slice(1);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of parts.entries()) {
    const segment = segments[index] ?? '';
    if (!(part.startsWith('{') && part.endsWith('}'))) {
      if (part !== segment) return undefined;
      continue;
    }
    if (segment === '') return undefined;
    try {
      params[part.slice(1, -1)] = decodeURIComponent(segment);
    } catch {
      params[part.slice(1, -1)] = segment;
    }
  }
  return params;
}

/** Orders templates of one length: a static segment beats a `{param}` one, the leftmost difference deciding. */
const specificity = (template: string): string =>
  template
    .split('/')
    .map((part) => (part.startsWith('{') ? '0' : '1'))
    .join('');

/**
 * API Gateway's rule: the resource is chosen first (a static segment wins over a `{param}` segment), then
 * the method. `GET /library/push` is the resource /library/push without a GET, not GET /library/{itemGuid}.
 */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
): RouteMatch | 'method-not-allowed' | undefined {
  const segments = path.split('/').slice(1);
  let best: { template: string; params: Record<string, string>; rank: string } | undefined;
  for (const template of new Set(routes.map((route) => route.path))) {
    const params = matchTemplate(template, segments);
    if (!params) continue;
    const rank = specificity(template);
    if (!best || rank > best.rank) best = { template, params, rank };
  }
  if (!best) return undefined;
  const { template, params } = best;
  const route = routes.find((candidate) => candidate.path === template && candidate.method === method);
  if (!route) return 'method-not-allowed';
  return { route, pathParameters: Object.keys(params).length > 0 ? params : null };
}

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

/**
 * A request's path as the front logs it: the route's resource path (`/builder/{token}`), as API Gateway's
 * access log has it, never the path itself (checkout ids and builder tokens in it work as secrets) nor the
 * query (cursors). A path no route takes is logged as `(no route)`.
 */
export function loggedPath(routes: readonly Route[], request: Pick<IncomingMessage, 'method' | 'url'>): string {
  const { pathname } = new URL(request.url ?? '/', 'http://127.0.0.1');
  const match = matchRoute(routes, (request.method ?? 'GET').toUpperCase(), pathname);
  return typeof match === 'object' ? match.route.path : '(no route)';
}

/** CORS preflight: the methods the path takes, or 404 for a path no route has. */
function preflight(routes: readonly Route[], path: string, origin: string | undefined): APIGatewayProxyResult {
  const methods = HTTP_METHODS.filter((method) => typeof matchRoute(routes, method, path) === 'object');
  if (methods.length === 0) return gatewayAnswer('RouteNotFound', `No route OPTIONS ${path}.`);
  return { statusCode: 204, headers: preflightHeaders(origin, methods), body: '' };
}

/**
 * Single- and multi-value maps as API Gateway builds them (the last value wins in the single map). Built
 * as own properties: a client's `__proto__` or `constructor` is an ordinary name in API Gateway's JSON event.
 */
function collect(pairs: Iterable<[string, string]>) {
  const multi = new Map<string, string[]>();
  for (const [name, value] of pairs) multi.set(name, [...(multi.get(name) ?? []), value]);
  return {
    single: Object.fromEntries(
      [...multi].map(([name, values]) => [name, values[values.length - 1] as string]),
    ) as Record<string, string>,
    multi: Object.fromEntries(multi) as Record<string, string[]>,
  };
}

function headersOf(request: IncomingMessage) {
  const pairs: [string, string][] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2)
    pairs.push([request.rawHeaders[i] as string, request.rawHeaders[i + 1] as string]);
  const { single, multi } = collect(pairs);
  return { headers: single, multiValueHeaders: multi };
}

function queryOf(url: URL) {
  const { single, multi } = collect(url.searchParams);
  return Object.keys(single).length > 0 ? { single, multi } : { single: null, multi: null };
}

/** The body, or a 413 once it passes `limit` (the rest is left to `discardBody`, never cut off with a reset). */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        request.off('data', onData);
        reject(payloadTooLarge(`The request body is over ${limit} bytes, API Gateway's limit for this API.`));
      }
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

/**
 * Reads and throws away what the client is still sending, up to `limit` bytes, before an answer given
 * without the body (401, 403, 404, 405, 413). Answering and closing while the client still writes makes
 * its TCP stack see a reset instead of the answer; API Gateway reads the body first too. False when the
 * body went past the limit (the connection is then closed after the answer).
 */
function discardBody(request: IncomingMessage, limit: number): Promise<boolean> {
  if (request.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (whole: boolean) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('close', onClose);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > limit) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(request.complete);
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('close', onClose);
    request.resume();
  });
}

function isBinary(contentType: string | undefined, binaryMediaTypes: readonly string[]): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return binaryMediaTypes.some((pattern) =>
    pattern.endsWith('/*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern,
  );
}

export function lambdaContext(functionName: string, timeoutMs = 29_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

function send(response: ServerResponse, result: APIGatewayProxyResult, requestId: string): void {
  const headers: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  const body = result.isBase64Encoded
    ? Buffer.from(result.body ?? '', 'base64')
    : Buffer.from(result.body ?? '', 'utf8');
  headers['Content-Length'] = String(body.length);
  response.writeHead(result.statusCode, headers);
  response.end(body);
}

/** A handler's answer, which the front passes on untouched (its own answers get CORS headers). */
interface HandlerAnswer {
  fromHandler: APIGatewayProxyResult;
}

export function createApiGatewayFront(options: ApiGatewayFrontOptions): Server {
  const stage = options.stage ?? 'local';
  const throttle = new Throttle(options.throttle ?? throttleSettingsFromEnv());

  async function handle(request: IncomingMessage, requestId: string): Promise<APIGatewayProxyResult | HandlerAnswer> {
    const early = options.beforeRoute?.(request);
    if (early) return early;
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = (request.method ?? 'GET').toUpperCase();
    if (method === 'OPTIONS') return preflight(options.routes, url.pathname, request.headers.origin);
    const match = matchRoute(options.routes, method, url.pathname);
    if (match === undefined) return gatewayAnswer('RouteNotFound', `No route ${method} ${url.pathname}.`);
    if (match === 'method-not-allowed')
      return errorAnswer(405, 'MethodNotAllowed', `${method} is not allowed on ${url.pathname}.`);
    const { route, pathParameters } = match;

    const { headers, multiValueHeaders } = headersOf(request);
    const query = queryOf(url);
    const binary = isBinary(request.headers['content-type'], options.binaryMediaTypes);
    const now = Date.now();
    const requestContext = {
      accountId: ACCOUNT,
      apiId: API_ID,
      authorizer: null as Record<string, unknown> | null,
      domainName: request.headers.host ?? '127.0.0.1',
      domainPrefix: '127',
      extendedRequestId: requestId,
      httpMethod: method,
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `/${stage}${url.pathname}`,
      protocol: `HTTP/${request.httpVersion}`,
      requestId,
      requestTime: new Date(now).toUTCString(),
      requestTimeEpoch: now,
      resourceId: route.handler,
      resourcePath: route.path,
      stage,
    };

    if (route.credential !== 'none') {
      const methodArn = `arn:aws:execute-api:${REGION}:${ACCOUNT}:${API_ID}/${stage}/${method}${url.pathname}`;
      let result: APIGatewayAuthorizerResult;
      try {
        result = await options.authorizer({
          type: 'REQUEST',
          methodArn,
          resource: route.path,
          path: url.pathname,
          httpMethod: method,
          headers,
          multiValueHeaders,
          pathParameters,
          queryStringParameters: query.single,
          multiValueQueryStringParameters: query.multi,
          stageVariables: null,
          requestContext: requestContext as unknown as APIGatewayRequestAuthorizerEvent['requestContext'],
        });
      } catch (error) {
        if ((error as Error).message === 'Unauthorized') return gatewayAnswer('Unauthorized');
        throw error;
      }
      if (!isAllowed(result.policyDocument as PolicyDocument, methodArn)) return gatewayAnswer('Forbidden');
      requestContext.authorizer = { ...(result.context ?? {}), principalId: result.principalId };
      throttle.take(callersOf(requestContext.authorizer));
    }

    // After the authorizer, as in API Gateway: a refused caller gets 401/403 whatever the body's size.
    const body = await readBody(request, options.maxBodyBytes);
    const event: APIGatewayProxyEvent = {
      resource: route.path,
      path: url.pathname,
      httpMethod: method,
      headers,
      multiValueHeaders,
      queryStringParameters: query.single,
      multiValueQueryStringParameters: query.multi,
      pathParameters,
      stageVariables: null,
      requestContext: requestContext as APIGatewayProxyEvent['requestContext'],
      body: body.length === 0 ? null : binary ? body.toString('base64') : body.toString('utf8'),
      isBase64Encoded: binary && body.length > 0,
    };
    const handler = await options.loadHandler(route.handler);
    return { fromHandler: await handler(event, lambdaContext(route.handler)) };
  }

  const server = createServer((request, response) => {
    const requestId = randomUUID();
    handle(request, requestId)
      .catch((error: unknown) => {
        if (!(error instanceof DomainError))
          console.error(`[local api] ${request.method} ${loggedPath(options.routes, request)} failed:`, error);
        return errorResponse(error);
      })
      .then(async (answer) => {
        if (!(await discardBody(request, DISCARD_LIMIT_BYTES))) response.setHeader('Connection', 'close');
        // API Gateway's own answers (401, 403, 429, ...) carry the CORS headers (gateway responses in AWS).
        const result =
          'fromHandler' in answer
            ? answer.fromHandler
            : withCors(answer, request.headers as Record<string, string | undefined>);
        send(response, result, requestId);
      });
  });
  server.on('clientError', answerUnparsable);
  return server;
}

/**
 * Requests Node cannot parse (headers over 16 KiB, a malformed request line) never reach `handle`; they
 * still get the API's JSON error shape, as API Gateway's gateway responses give them in AWS.
 */
function answerUnparsable(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const result = tooLarge
    ? errorAnswer(431, 'RequestHeaderFieldsTooLarge', 'The request line and headers are too large.')
    : errorAnswer(400, 'MalformedRequest', 'The request could not be parsed as HTTP.');
  const body = Buffer.from(result.body ?? '', 'utf8');
  const head = [
    `HTTP/1.1 ${result.statusCode} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}`,
    `Content-Type: ${JSON_CONTENT_TYPE}`,
    `Content-Length: ${body.length}`,
    'Connection: close',
    '',
    '',
  ];
  socket.end(Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), body]));
}
