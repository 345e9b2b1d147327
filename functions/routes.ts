/**
 * The route table: the single list of endpoints. The local API Gateway front (lib/local) and the CDK
 * stack (lib/) are both built from it, so they cannot drift. Pure data on purpose: the authorizer
 * bundles it to build its policies, and it must stay small.
 */

/** Which credential a route takes. `user`: bearer JWT. `library` / `internal`: API key of that scope. */
export type Credential = 'none' | 'user' | 'library' | 'internal';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** API Gateway resource path; `{name}` marks a path parameter. */
  path: string;
  /** Module name under functions/handlers/ exporting `handler`. One Lambda function per route. */
  handler: string;
  credential: Credential;
  /** Short description for the OpenAPI document and the dashboard. */
  summary: string;
}

export const routes: readonly Route[] = [
  { method: 'GET', path: '/health', handler: 'get-health', credential: 'none', summary: 'Liveness check' },
  { method: 'GET', path: '/openapi.json', handler: 'get-openapi', credential: 'none', summary: 'OpenAPI 3.1 document' },

  { method: 'POST', path: '/basket', handler: 'create-basket', credential: 'user', summary: 'Create an empty basket' },
  { method: 'GET', path: '/baskets', handler: 'list-baskets', credential: 'user', summary: "List the user's baskets" },
  { method: 'GET', path: '/basket/{basketGuid}', handler: 'get-basket', credential: 'user', summary: 'Read a basket' },
  { method: 'DELETE', path: '/basket/{basketGuid}', handler: 'delete-basket', credential: 'user', summary: 'Delete a basket' },
  { method: 'POST', path: '/basket/{basketGuid}/line', handler: 'add-basket-line', credential: 'user', summary: 'Add a line (or add to the line of that project)' },
  { method: 'PUT', path: '/basket/{basketGuid}/line/{lineId}', handler: 'update-basket-line', credential: 'user', summary: "Change a line's quantity" },
  { method: 'DELETE', path: '/basket/{basketGuid}/line/{lineId}', handler: 'delete-basket-line', credential: 'user', summary: 'Delete a line' },
  { method: 'POST', path: '/basket/{basketGuid}/checkout', handler: 'checkout-basket', credential: 'user', summary: 'Get a checkout URL for the basket' },

  { method: 'PUT', path: '/project/{projectGuid}', handler: 'put-project', credential: 'internal', summary: 'Register or update a project price' },
  { method: 'GET', path: '/project/{projectGuid}', handler: 'get-project', credential: 'internal', summary: 'Read a project price' },
];

/** Content types API Gateway must pass through as binary (base64) rather than as UTF-8 text. */
export const binaryMediaTypes: readonly string[] = ['multipart/form-data', 'image/*', 'application/octet-stream'];

/** API Gateway's resource path form for IAM resources: `{param}` becomes `*`. */
export function resourcePattern(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}`;
}
