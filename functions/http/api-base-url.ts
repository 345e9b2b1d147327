/**
 * Where a request reached the API, as an absolute URL without a trailing slash: the scheme API Gateway
 * passes in X-Forwarded-Proto (https in AWS), the domain name, and the part of the request's path before the
 * route's own (the stage of an execute-api URL, or a custom domain's base path). URLs the API hands out to
 * itself (artwork DownloadLinks) are built on it, so they reach the same stage by the same name.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lowerCaseHeaders } from './headers.ts';

export function apiBaseUrlOf(event: APIGatewayProxyEvent): string {
  const scheme = lowerCaseHeaders(event.headers)['x-forwarded-proto'] ?? 'https';
  const fullPath = event.requestContext.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  return `${scheme}://${event.requestContext.domainName}${prefix}`;
}
