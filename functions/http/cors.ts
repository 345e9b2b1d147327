/**
 * CORS for the API: the handlers add these headers to every answer (functions/http/endpoint.ts), API
 * Gateway answers preflights in AWS and the local front does so locally (lib/local/api-gateway.ts).
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { config } from '../shared/config.ts';
import { headerOf, type RequestHeaders } from './headers.ts';

/** Request headers a browser may send cross-origin; API Gateway's preflight and the local front use this list. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-SERVICE-API-Key', 'Idempotency-Key'];
/** WWW-Authenticate: a browser app reads why its token was refused (RFC 6750's error and description). */
const CORS_EXPOSED_HEADERS = 'Retry-After, Idempotent-Replayed, x-amzn-RequestId, WWW-Authenticate';

/**
 * CORS headers for a response to a request from `origin`, per CORS_ALLOWED_ORIGINS (none by default).
 * Credentials are never allowed, for `*` or any origin: the API takes tokens and keys in headers, not
 * cookies, so no browser needs credentialed requests.
 */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  const allowed = config.corsAllowedOrigins;
  if (allowed.length === 0) return {};
  if (allowed.includes('*'))
    return origin === undefined
      ? {}
      : { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS };
  // The answer depends on Origin, so caches must key on it even when this origin gets nothing.
  if (origin === undefined || !allowed.includes(origin)) return { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS,
    Vary: 'Origin',
  };
}

/** The answer to a CORS preflight for a path that takes `methods` (the local front; API Gateway in AWS). */
export function preflightHeaders(origin: string | undefined, methods: readonly string[]): Record<string, string> {
  const headers = corsHeaders(origin);
  if (!headers['Access-Control-Allow-Origin']) return headers;
  return {
    ...headers,
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': '600',
  };
}

/** `response` with the CORS headers for the request that carried `requestHeaders`. */
export function withCors(response: APIGatewayProxyResult, requestHeaders: RequestHeaders): APIGatewayProxyResult {
  // CORS off (the default): nothing to add, and no need to look for the Origin header.
  if (config.corsAllowedOrigins.length === 0) return response;
  return { ...response, headers: { ...response.headers, ...corsHeaders(headerOf(requestHeaders, 'origin')) } };
}
