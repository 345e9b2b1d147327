/**
 * The one place where errors become HTTP answers: each domain error kind has its status here, and every
 * error leaves as `{ "Error": { "Code", "Message", ...details } }`. A transient AWS failure is a retryable
 * 503; anything else a 500 that reveals nothing internal.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { DomainError, isTransientAwsError, serviceUnavailable, type ErrorKind } from '../shared/errors.ts';
import { jsonResponse } from './json.ts';

export const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  Invalid: 400,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  Gone: 410,
  TooLarge: 413,
  UnsupportedMedia: 415,
  Unprocessable: 422,
  TooManyRequests: 429,
  Unavailable: 503,
};

/** The HTTP status a domain error is answered with. */
export const statusOf = (error: DomainError): number => STATUS_OF_KIND[error.kind];

/** An error answer in the service's shape; the front's own refusals (405, 431, ...) use it directly. */
export function errorAnswer(
  status: number,
  code: string,
  message: string,
  options: { details?: Record<string, unknown>; retryAfterSeconds?: number } = {},
): APIGatewayProxyResult {
  const retryable = options.retryAfterSeconds !== undefined;
  const body = {
    Error: { Code: code, Message: message, ...options.details, ...(retryable ? { Retryable: true } : {}) },
  };
  return jsonResponse(status, body, retryable ? { 'Retry-After': String(options.retryAfterSeconds) } : {});
}

export function errorResponse(error: unknown): APIGatewayProxyResult {
  const known =
    error instanceof DomainError
      ? error
      : isTransientAwsError(error)
        ? serviceUnavailable('The service is busy right now; retry the request shortly.')
        : undefined;
  if (known) return errorAnswer(statusOf(known), known.code, known.message, known);
  // Every write is a conditional, repeatable step, so an unexpected failure leaves nothing a retry would double.
  return errorAnswer(500, 'InternalError', 'The request could not be completed. It is safe to retry.', {
    retryAfterSeconds: 1,
  });
}
