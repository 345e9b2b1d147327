/**
 * Where a request reached the API, as an absolute URL without a trailing slash: the scheme API Gateway
 * passes in X-Forwarded-Proto (https in AWS), the domain name, and the part of the request's path before the
 * route's own (the stage of an execute-api URL, or a custom domain's base path). URLs the API hands out to
 * itself (artwork DownloadLinks) are built on it, so they reach the same stage by the same name.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';

export function apiBaseUrlOf(event: APIGatewayProxyEvent, headers: Record<string, string | undefined>): string {
  const scheme = headers['x-forwarded-proto'] ?? 'https';
  // The route's own path: its resource with the path parameters in place (guids: nothing to encode).
  const routePath = event.resource.replace(/\{(\w+)\}/g, (_, name: string) => event.pathParameters?.[name] ?? '');
  const fullPath = event.requestContext.path ?? event.path;
  const prefix = fullPath.endsWith(routePath) ? fullPath.slice(0, fullPath.length - routePath.length) : '';
  return `${scheme}://${event.requestContext.domainName}${prefix}`;
}
