/**
 * The answers API Gateway gives itself, before or instead of a handler (refused credentials, unknown
 * routes, throttling, bodies over its limit, timeouts). One table, as functions/routes.ts is for routes:
 * lib/constructs/api.ts turns it into gateway responses in AWS, and the local front
 * (lib/local/api-gateway.ts) answers with the same statuses, codes and headers.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
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
}

export const GATEWAY_ANSWERS = {
  Unauthorized: {
    responseTypes: ['UNAUTHORIZED'],
    status: 401,
    code: 'Unauthorized',
    message: 'Missing or invalid credentials.',
  },
  Forbidden: {
    responseTypes: ['ACCESS_DENIED', 'INVALID_API_KEY'],
    status: 403,
    code: 'Forbidden',
    message: 'This credential may not call this endpoint.',
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
  },
  ServerError: {
    responseTypes: ['DEFAULT_5XX'],
    code: 'InternalError',
    message: 'The request could not be completed. It is safe to retry.',
    retryable: true,
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

/** The local front's version of a gateway answer; `message` replaces the table's with a more precise one. */
export function gatewayAnswer(name: Plain, message?: string): APIGatewayProxyResult {
  const answer = GATEWAY_ANSWERS[name];
  return errorAnswer(answer.status, answer.code, message ?? answer.message);
}
