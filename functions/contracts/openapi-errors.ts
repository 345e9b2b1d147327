/**
 * The error responses of each operation in the OpenAPI document: the statuses and codes every route of
 * its kind can answer (validation, credentials, idempotency, throttling, storage faults, API Gateway's own
 * answers in lib/constructs/api.ts) plus the route's own (`errors` of its contract). Each names its codes,
 * so a client can tell which it has to handle.
 */
import type { Route } from '../routes.ts';
import type { RouteContract } from './registry.ts';

type Status = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503 | 504;

const meaning: Record<Status, string> = {
  400: 'The request is malformed or invalid; nothing was changed.',
  401: 'No credential, or a refused one; the message says which: missing (and what to send), malformed, expired (and when), not signed by the keys of the trusted issuer or of another issuer or audience, an unknown or revoked API key, or a credential under the wrong header (and which to use). A refused bearer token carries WWW-Authenticate: Bearer error="invalid_token" (RFC 6750).',
  403: 'The credential is valid but of another kind than this operation takes; the message names the kind or API key scope the operation takes and the one the request carried. On a link: it is not as the service signed it.',
  404: 'What the path names does not exist for this caller; nothing was changed.',
  409: 'The request conflicts with the current state; nothing was changed.',
  410: 'What the request names existed and is gone for good (an expired or dead link).',
  413: 'Too large: the request body is over the limit, or an image is.',
  415: 'The bytes are not an accepted image (the type is sniffed from the bytes, not taken from the declared content type); nothing was stored.',
  422: 'Understood but refused; nothing was changed.',
  429: "Too many requests: this credential's rate or quota, or the API's own rate (API Gateway); retry after Retry-After seconds when Retryable is true.",
  500: 'The request failed unexpectedly; every write is a conditional, repeatable step, so a retry is safe.',
  503: 'The service is busy (storage throttling or contention); retry the same request after Retry-After seconds.',
  504: 'API Gateway stopped waiting for the function (29 s); a retry is safe.',
};

/** Statuses whose answer carries Retry-After (and Retryable: true unless a quota is used up). */
const RETRY_AFTER = new Set<Status>([429, 500, 503, 504]);

/** The codes `route` can answer, by status. */
export function errorCodesOf(route: Route, contract: RouteContract): Partial<Record<Status, string[]>> {
  const own = contract.errors ?? {};
  const withOwn = (status: keyof typeof own, codes: (string | false | undefined)[]) => [
    ...codes.filter((code): code is string => typeof code === 'string'),
    ...(own[status] ?? []),
  ];
  const credentialed = route.credential !== 'none';
  const hasQuery = contract.query !== undefined;
  // A paginated list takes ?cursor= (PageQuery), refused when it is not one the listing handed out.
  const pageable = 'cursor' in ((contract.query as { shape?: object } | undefined)?.shape ?? {});
  const storage = route.grants.table !== undefined || route.grants.bucket !== undefined;
  const codes: Partial<Record<Status, string[]>> = {
    400: withOwn(400, [
      (contract.path !== undefined || hasQuery || contract.body !== undefined) && 'ValidationFailed',
      contract.body !== undefined && 'InvalidJson',
      contract.idempotent && 'InvalidIdempotencyKey',
      pageable && 'InvalidCursor',
    ]),
    401: credentialed ? ['Unauthorized'] : [],
    403: withOwn(403, [credentialed && 'Forbidden']),
    404: withOwn(404, []),
    409: withOwn(409, [contract.idempotent && 'IdempotencyKeyInUse']),
    410: withOwn(410, []),
    // The front refuses a body over its limit on every route, one that takes no body too.
    413: withOwn(413, ['PayloadTooLarge']),
    415: withOwn(415, []),
    422: withOwn(422, [contract.idempotent && 'IdempotencyKeyReused']),
    429: withOwn(429, ['TooManyRequests']),
    500: ['InternalError'],
    503: storage ? ['ServiceUnavailable', 'ConcurrentModification'] : [],
    504: ['GatewayTimeout'],
  };
  const answered = Object.entries(codes).map(([status, list]) => [status, [...new Set(list)]] as const);
  return Object.fromEntries(answered.filter(([, list]) => list.length > 0));
}

/** Answers that are the same on every route that gives them: one shared response each. */
const SHARED: Partial<Record<Status, { name: string; codes: readonly string[] }>> = {
  401: { name: 'Unauthorized', codes: ['Unauthorized'] },
  403: { name: 'Forbidden', codes: ['Forbidden'] },
  413: { name: 'PayloadTooLarge', codes: ['PayloadTooLarge'] },
  429: { name: 'TooManyRequests', codes: ['TooManyRequests'] },
  500: { name: 'InternalError', codes: ['InternalError'] },
  503: { name: 'ServiceUnavailable', codes: ['ServiceUnavailable', 'ConcurrentModification'] },
  504: { name: 'GatewayTimeout', codes: ['GatewayTimeout'] },
};

/**
 * One example per code, with that code (Retryable as the throttle's 429 says it; a used-up quota's does not): the reference page shows them (swagger-ui would otherwise make one up
 * from the schema, every status reading the schema's sample code).
 */
const examplesOf = (status: Status, codes: readonly string[]) =>
  Object.fromEntries(
    codes.map((code) => [
      code,
      {
        summary: code,
        value: {
          Error: { Code: code, Message: meaning[status], ...(RETRY_AFTER.has(status) ? { Retryable: true } : {}) },
        },
      },
    ]),
  );

function errorResponse(status: Status, codes: readonly string[]) {
  const retryAfter = RETRY_AFTER.has(status) || codes.includes('IdempotencyKeyInUse');
  const headers = {
    ...(retryAfter ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
    ...(status === 401 ? { 'WWW-Authenticate': { $ref: '#/components/headers/WwwAuthenticate' } } : {}),
  };
  return {
    description: `${meaning[status]} Error.Code: ${codes.join(', ')}.`,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples: examplesOf(status, codes) },
    },
  };
}

/** The `responses` entries of `route`'s errors. */
export function errorResponsesOf(route: Route, contract: RouteContract): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [key, codes = []] of Object.entries(errorCodesOf(route, contract))) {
    const status = Number(key) as Status;
    const shared = SHARED[status];
    const same = shared !== undefined && shared.codes.join() === codes.join();
    responses[key] = same ? { $ref: `#/components/responses/${shared.name}` } : errorResponse(status, codes);
  }
  return responses;
}

export const errorComponents = {
  responses: Object.fromEntries(
    Object.entries(SHARED).map(([status, { name, codes }]) => [name, errorResponse(Number(status) as Status, codes)]),
  ),
  headers: {
    RetryAfter: {
      description: 'Seconds to wait before sending the same request again.',
      schema: { type: 'integer', minimum: 0, example: 1 },
    },
    WwwAuthenticate: {
      description:
        'RFC 6750: `Bearer realm="photo-commerce"` when no bearer token was sent where it belongs; with `error="invalid_token"` and `error_description` when a bearer token was refused. Absent when an API key was refused.',
      schema: {
        type: 'string',
        example:
          'Bearer realm="photo-commerce", error="invalid_token", error_description="The bearer token expired at 2026-01-02T03:04:05.000Z; get a new one."',
      },
    },
  },
};
