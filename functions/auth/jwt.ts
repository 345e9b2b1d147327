/**
 * Bearer token verification with jose: signature against the issuer's JWKS (remote for Cognito or any
 * OIDC provider, a local file for `npm start`), issuer, audience, expiry.
 */
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { config } from '../shared/config.ts';

let keySet: JWTVerifyGetKey | undefined;

function jwks(): JWTVerifyGetKey {
  if (keySet) return keySet;
  const url = config.jwtJwksUrl;
  if (url) return (keySet = createRemoteJWKSet(new URL(url), { timeoutDuration: 3000, cacheMaxAge: 10 * 60 * 1000 }));
  const file = config.jwtJwksFile;
  if (!file) throw new Error('set JWT_JWKS_URL (or JWT_JWKS_FILE locally) to verify bearer tokens');
  return (keySet = createLocalJWKSet(JSON.parse(readFileSync(file, 'utf8'))));
}

/** The token's subject when the token is valid; undefined otherwise (the reason is logged by the caller). */
export async function verifyBearerToken(token: string): Promise<{ userId: string } | { error: string }> {
  try {
    const audience = config.jwtAudience;
    const { payload } = await jwtVerify(token, jwks(), {
      issuer: config.jwtIssuer,
      ...(audience ? { audience } : {}),
      algorithms: ['RS256', 'ES256'],
      clockTolerance: 5,
    });
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 256) return { error: 'token has no usable subject' };
    return { userId: payload.sub };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? 'token verification failed' };
  }
}
