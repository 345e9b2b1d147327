/** The `--scope` argument of the API key CLIs (bin/api-key.ts, bin/aws-api-key.ts), checked against the scopes. */
import { API_KEY_SCOPES, isApiKeyScope, type ApiKeyScope } from '../functions/auth/principal.ts';

export const SCOPE_CHOICES = API_KEY_SCOPES.join('|');

/** What each scope opens, for the error that lists them. */
const OPENS: Record<ApiKeyScope, string> = {
  library: 'client apps: /library push, pull, uploads, builder URLs',
  site: 'the checkout and product builder site: GET /checkout, POST /checkout/{id}/complete, GET /builder',
  catalog: 'the pricing system: PUT and GET /project',
  fulfilment: 'order processing: PUT /order/{guid}/status',
};

/** The scope, or the error to print: which scopes exist, and where the retired `internal` went. */
export function parseScope(value: string): { scope: ApiKeyScope } | { error: string } {
  if (isApiKeyScope(value)) return { scope: value };
  const scopes = API_KEY_SCOPES.map((scope) => `  ${scope.padEnd(10)} ${OPENS[scope]}\n`).join('');
  const retired =
    value === 'internal'
      ? 'The scope "internal" no longer exists: it was split into site, catalog and fulfilment, so that a key opens only its holder\'s routes.\n'
      : `Unknown scope "${value}".\n`;
  return { error: `${retired}The scopes are:\n${scopes}` };
}
