/**
 * The answers API Gateway gives itself, before or instead of a handler (missing or forbidden credentials,
 * unknown routes, throttling, bodies over its limit, timeouts). One table, as functions/routes.ts is for
 * routes: lib/constructs/api.ts turns it into gateway responses in AWS, and the local front
 * (lib/local/api-gateway.ts) answers with the same statuses, codes, headers and substitutions.
 *
 * Gateway responses are static but for `$context` variables: a message may name
 * `$context.authorizer.<key>`, which API Gateway replaces with that key of the authorizer's context
 * (functions/auth/refusal.ts keeps those values JSON-safe).
 */
import type { APIGatewayAuthorizerResultContext, APIGatewayProxyResult } from 'aws-lambda';
import { API_KEY_HEADER, bearerChallenge } from '../auth/refusal.ts';
import { errorAnswer } from './errors.ts';

export interface GatewayAnswer {
  /** API Gateway's response types that give this answer. */
  responseTypes: readonly string[];
  /** Unset for DEFAULT_5XX, which keeps the status API Gateway chose. */
  status?: number;
  code: string;
  message: string;
  /** The body says `Retryable: true`. */
  retryable?: true;
  /** The answer carries `Retry-After: 1` in AWS (the local throttle names its own wait). */
  retryAfter?: true;
  /** Further headers, static. */
  headers?: Record<string, string>;
}

export const GATEWAY_ANSWERS = {
  /**
   * No credential header (the authorizer throws "Unauthorized", or, with its cache on, API Gateway does
   * not call it). A credential that was sent and refused is answered by the handler with its reason.
   */
  Unauthorized: {
    responseTypes: ['UNAUTHORIZED'],
    status: 401,
    code: 'Unauthorized',
    message: `No credential: user routes take Authorization: Bearer <token>, API key routes take the ${API_KEY_HEADER} header (see GET /openapi.json).`,
    headers: { 'WWW-Authenticate': bearerChallenge() },
  },
  /** A valid credential of another kind than the route takes: the authorizer's Deny names both. */
  Forbidden: {
    responseTypes: ['ACCESS_DENIED'],
    status: 403,
    code: 'Forbidden',
    message: '$context.authorizer.forbidden',
  },
  /** The authorizer allowed an API-key route without a registered usage key (bin/aws-api-key.ts not run). */
  KeyNotRegistered: {
    responseTypes: ['INVALID_API_KEY'],
    status: 403,
    code: 'Forbidden',
    message: 'This API key is not registered with the usage plans of this API.',
  },
  RouteNotFound: {
    responseTypes: ['MISSING_AUTHENTICATION_TOKEN', 'RESOURCE_NOT_FOUND'],
    status: 404,
    code: 'RouteNotFound',
    message: 'No such route. GET /openapi.json lists every route.',
  },
  Throttled: {
    responseTypes: ['THROTTLED'],
    status: 429,
    code: 'TooManyRequests',
    message: 'Too many requests for this credential; retry after the time in Retry-After.',
    retryable: true,
    retryAfter: true,
  },
  QuotaExceeded: {
    responseTypes: ['QUOTA_EXCEEDED'],
    status: 429,
    code: 'TooManyRequests',
    message: 'The request quota of this credential is used up.',
    retryAfter: true,
  },
  RequestTooLarge: {
    responseTypes: ['REQUEST_TOO_LARGE'],
    status: 413,
    code: 'PayloadTooLarge',
    message: "The request body is over API Gateway's limit; upload large images with POST /library/upload.",
  },
  IntegrationTimeout: {
    responseTypes: ['INTEGRATION_TIMEOUT'],
    status: 504,
    code: 'GatewayTimeout',
    message: 'The request took too long. It is safe to retry.',
    retryable: true,
    retryAfter: true,
  },
  ServerError: {
    responseTypes: ['DEFAULT_5XX'],
    code: 'InternalError',
    message: 'The request could not be completed. It is safe to retry.',
    retryable: true,
    retryAfter: true,
  },
} as const satisfies Record<string, GatewayAnswer>;

type Answers = typeof GATEWAY_ANSWERS;
/** The answers with a status of their own and no wait to name (the throttle's 429 names its own). */
type Plain = {
  [Name in keyof Answers]: Answers[Name] extends { status: number }
    ? Answers[Name] extends { retryable: true } | { retryAfter: true }
      ? never
      : Name
    : never;
}[keyof Answers];

/**
 * The local front's version of a gateway answer: the table's message with `$context.authorizer.<key>`
 * replaced as API Gateway does (an absent key becomes empty), or a more precise `message` of its own.
 */
export function gatewayAnswer(
  name: Plain,
  options: { message?: string; authorizer?: APIGatewayAuthorizerResultContext } = {},
): APIGatewayProxyResult {
  const answer = GATEWAY_ANSWERS[name];
  const message =
    options.message ??
    answer.message.replace(/\$context\.authorizer\.(\w+)/g, (_, key: string) =>
      String(options.authorizer?.[key] ?? ''),
    );
  const result = errorAnswer(answer.status, answer.code, message);
  return { ...result, headers: { ...result.headers, ...(answer as GatewayAnswer).headers } };
}
