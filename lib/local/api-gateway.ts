/**
 * A local API Gateway (REST, v1 proxy integration) in front of the real handlers. Each HTTP request is
 * matched against the route table, turned into the event API Gateway would send, passed through the
 * REQUEST authorizer with the same policy evaluation (401 when it throws "Unauthorized", 403 naming its
 * context's `forbidden` when its policy leaves the route out; a refused credential it lets through is
 * answered 401 by the handler), throttled per API key and per user (429, like a usage plan), and handed to the
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
import { ROUTE_LIST } from './api-docs.ts';
import { JSON_CONTENT_TYPE } from '../../functions/http/json.ts';
import { DomainError } from '../../functions/shared/errors.ts';
import { ACCOUNT, headersOf, isBinary, lambdaContext, queryOf, REGION } from './lambda-event.ts';
import { discardBody, readBody } from './request-body.ts';
import { loggedPath, matchRoute } from './route-matching.ts';
import { callersOf, Throttle, throttleSettingsFromEnv, type ThrottleSettings } from './throttle.ts';

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type RequestAuthorizer = (
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

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

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

/** CORS preflight: the methods the path takes, or 404 for a path no route has. */
function preflight(routes: readonly Route[], path: string, origin: string | undefined): APIGatewayProxyResult {
  const methods = HTTP_METHODS.filter((method) => typeof matchRoute(routes, method, path) === 'object');
  if (methods.length === 0)
    return gatewayAnswer('RouteNotFound', { message: `No route OPTIONS ${path}. ${ROUTE_LIST}` });
  return { statusCode: 204, headers: preflightHeaders(origin, methods), body: '' };
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

/**
 * Sending failed (a handler's header Node refuses, an invalid status, a closed socket): a 500 in the API's
 * shape when nothing was sent yet, else the connection is cut; logged, never an unhandled rejection that
 * would end `npm start`.
 */
function answerFailedSend(response: ServerResponse, error: unknown, requestId: string, logged: string): void {
  console.error(`[local api] ${logged} answer failed:`, error);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  try {
    send(response, errorResponse(error), requestId);
  } catch {
    response.destroy();
  }
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
    if (match === undefined)
      return gatewayAnswer('RouteNotFound', { message: `No route ${method} ${url.pathname}. ${ROUTE_LIST}` });
    if (match === 'method-not-allowed')
      return errorAnswer(405, 'MethodNotAllowed', `${method} is not allowed on ${url.pathname}.`);
    const { route, pathParameters } = match;

    const { headers, multiValueHeaders } = headersOf(request);
    // As API Gateway tells a function the scheme it was reached by (https there): URLs the API hands out to itself use it.
    headers['X-Forwarded-Proto'] = 'http';
    multiValueHeaders['X-Forwarded-Proto'] = ['http'];
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
      // Served at the root, as a custom domain without a base path: the path the client sent.
      path: url.pathname,
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
        result = await options.authorizer(
          {
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
          },
          lambdaContext('authorizer'),
        );
      } catch (error) {
        if ((error as Error).message === 'Unauthorized') return gatewayAnswer('Unauthorized');
        throw error;
      }
      // ACCESS_DENIED names what the authorizer's Deny says in its context, as the gateway response does in AWS.
      if (!isAllowed(result.policyDocument as PolicyDocument, methodArn))
        return gatewayAnswer('Forbidden', { authorizer: result.context ?? {} });
      requestContext.authorizer = { ...result.context, principalId: result.principalId };
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
      })
      .catch((error: unknown) =>
        answerFailedSend(response, error, requestId, `${request.method} ${loggedPath(options.routes, request)}`),
      );
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
