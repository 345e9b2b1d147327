/**
 * Which route a request takes, by API Gateway's rules: the resource first (a static segment beats a
 * `{param}` one), then the method; and the path the front logs for a request.
 */
import type { IncomingMessage } from 'node:http';
import type { Route } from '../../functions/routes.ts';

export interface RouteMatch {
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
