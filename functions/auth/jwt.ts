/**
 * Bearer token verification with jose: signature against the issuer's JWKS (remote over https for Cognito
 * or any OIDC provider, a local file for `npm start`), issuer, and the claims rules of functions/auth/claims.ts
 * (`exp` and `sub` required, `nbf`/`iat` not in the future, a maximum age, a mandatory audience).
 */
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { config } from '../shared/config.ts';
import { audienceProblem, CLOCK_TOLERANCE_SECONDS } from './claims.ts';
import { tokenRefusalOf, type TokenRefusal } from './token-refusal.ts';
import { recallVerified, rememberVerified, type TokenRules } from './verified-tokens.ts';

let keySet: JWTVerifyGetKey | undefined;

function jwks(): JWTVerifyGetKey {
  if (keySet) return keySet;
  const url = config.jwtJwksUrl;
  if (url) {
    // Over plain http anyone on the path could swap the keys, and with them every identity.
    if (!url.startsWith('https://')) throw new Error('JWT_JWKS_URL must be an https URL');
    return (keySet = createRemoteJWKSet(new URL(url), { timeoutDuration: 3000, cacheMaxAge: 10 * 60 * 1000 }));
  }
  const file = config.jwtJwksFile;
  if (!file) throw new Error('set JWT_JWKS_URL (or JWT_JWKS_FILE locally) to verify bearer tokens');
  return (keySet = createLocalJWKSet(JSON.parse(readFileSync(file, 'utf8'))));
}

/** The token's subject when the token is valid; otherwise why not (functions/auth/token-refusal.ts). */
export async function verifyBearerToken(token: string): Promise<{ userId: string } | { refused: TokenRefusal }> {
  const rules: TokenRules = {
    issuer: config.jwtIssuer,
    audiences: config.jwtAudiences,
    clientIds: config.jwtClientIds,
    maxAgeSeconds: config.jwtMaxAgeSeconds,
  };
  try {
    const recalled = recallVerified(token, rules);
    if (recalled !== undefined) return { userId: recalled };
    const { payload } = await jwtVerify(token, jwks(), {
      issuer: rules.issuer,
      algorithms: ['RS256', 'ES256'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['exp', 'sub'],
      // jose then requires `iat`, refuses it in the future and refuses a token older than this.
      ...(rules.maxAgeSeconds > 0 ? { maxTokenAge: rules.maxAgeSeconds } : {}),
    });
    const problem = audienceProblem(payload, { audiences: rules.audiences, clientIds: rules.clientIds });
    if (problem) return { refused: { reason: 'wrong-audience' } };
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 256)
      return { refused: { reason: 'claims', claim: 'sub' } };
    rememberVerified(token, rules, { userId: payload.sub, exp: payload.exp as number, iat: payload.iat });
    return { userId: payload.sub };
  } catch (error) {
    return { refused: tokenRefusalOf(error, rules.maxAgeSeconds) };
  }
}
