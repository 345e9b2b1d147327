/**
 * How the authorizer tells a refused or forbidden credential apart, through the only channel API Gateway
 * offers: the string context of its answer (docs/design.md, Credential failures).
 *
 * - Refused (present but not valid): the answer allows the route with `{ refusal, challenge? }` and no
 *   identity; the one HTTP adapter (functions/http/endpoint.ts) answers 401 with that message before any
 *   work. An Unauthorized exception would give API Gateway's static 401, which cannot say why.
 * - Forbidden (valid, but of another kind than the route takes): the answer denies with `{ forbidden }`,
 *   which the ACCESS_DENIED gateway response substitutes into its body (functions/http/gateway-answers.ts).
 *   The substitution is plain text inside a JSON string, so these sentences hold no quotes or backslashes.
 */
import type { Credential } from '../routes.ts';
import type { AuthorizerContext, Principal } from './principal.ts';

/** The realm of every bearer challenge (RFC 6750). */
export const BEARER_REALM = 'photo-commerce';
export const API_KEY_HEADER = 'X-SERVICE-API-Key';

export interface Refusal {
  message: string;
  /** The WWW-Authenticate value, for refusals that concern a bearer token. */
  challenge?: string;
}

/** RFC 6750 §3: `invalid_token` with a description, or no error code when no token was sent where it belongs. */
export function bearerChallenge(description?: string): string {
  const realm = `Bearer realm="${BEARER_REALM}"`;
  return description === undefined
    ? realm
    : `${realm}, error="invalid_token", error_description="${description.replace(/["\\]/g, '')}"`;
}

export function toRefusalContext(refusal: Refusal): AuthorizerContext {
  return { refusal: refusal.message, ...(refusal.challenge !== undefined ? { challenge: refusal.challenge } : {}) };
}

export function refusalOf(context: Record<string, unknown> | null | undefined): Refusal | undefined {
  const message = context?.refusal;
  if (typeof message !== 'string' || message === '') return undefined;
  return { message, ...(typeof context?.challenge === 'string' ? { challenge: context.challenge } : {}) };
}

/** What a credential kind is, in the words of a refusal. */
function describe(kind: Exclude<Credential, 'none'>): string {
  if (kind === 'user') return 'a bearer token (Authorization: Bearer <token>)';
  if (kind === 'apiKey') return `an API key (${API_KEY_HEADER})`;
  return `an API key of scope ${kind} (${API_KEY_HEADER})`;
}

/** The route takes `takes`; the request carried a valid credential of another kind. */
export function forbiddenMessage(takes: Exclude<Credential, 'none'>, principal: Principal): string {
  const carried =
    principal.userId !== undefined
      ? 'a bearer token'
      : principal.apiKey
        ? `an API key of scope ${principal.apiKey.scope}`
        : 'no credential of that kind';
  return `This endpoint takes ${describe(takes)}; the request carried ${carried}.`;
}
