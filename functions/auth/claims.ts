/**
 * The audience rule for bearer tokens: a token must be meant for this API. Either its `aud` names one of
 * the configured audiences (OIDC providers, Cognito ID tokens), or it is a Cognito access token, which
 * carries no `aud`: `token_use` is `access` and `client_id` is one of the configured app clients (the rule
 * AWS's aws-jwt-verify applies). With neither configured no token passes: fail closed.
 */
import type { JWTPayload } from 'jose';

/** Seconds of clock skew allowed on `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE_SECONDS = 5;

export interface AudienceRule {
  audiences: readonly string[];
  clientIds: readonly string[];
}

/** Why the token is not for this API, or undefined when it is. */
export function audienceProblem(payload: JWTPayload, rule: AudienceRule): string | undefined {
  if (rule.audiences.length === 0 && rule.clientIds.length === 0)
    return 'no audience or client id is configured (JWT_AUDIENCE, JWT_CLIENT_IDS)';
  const aud = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
  if (aud.some((value) => rule.audiences.includes(value))) return undefined;
  if (
    payload.aud === undefined &&
    payload.token_use === 'access' &&
    typeof payload.client_id === 'string' &&
    rule.clientIds.includes(payload.client_id)
  )
    return undefined;
  return 'token is not for this API (audience or client id)';
}
