/**
 * Why a bearer token was refused, as a typed reason mapped from jose's error codes, and the sentence a
 * client is told (functions/auth/refusal.ts carries it to the handler, which answers 401). A sentence
 * names what to fix without anything that would help forge a token: never a key id, never the token.
 * Sentences hold no double quotes or backslashes: they travel in a quoted WWW-Authenticate parameter.
 */
import { errors } from 'jose';

export type TokenRefusal =
  | { reason: 'malformed' }
  | { reason: 'expired'; at: Date }
  | { reason: 'too-old'; issuedAt: Date; maxAgeSeconds: number }
  /** Not signed by a key of the JWKS this API trusts (locally: another data folder's keys). */
  | { reason: 'wrong-keys' }
  | { reason: 'wrong-issuer' }
  | { reason: 'wrong-audience' }
  | { reason: 'claims'; claim: string }
  /** The issuer's keys could not be fetched: nothing is known about the token. */
  | { reason: 'unverifiable' };

const dateOf = (seconds: unknown) => new Date(typeof seconds === 'number' ? seconds * 1000 : 0);

/** The reason behind an error of jwtVerify (any other error: the token could not be checked). */
export function tokenRefusalOf(error: unknown, maxAgeSeconds: number): TokenRefusal {
  if (error instanceof errors.JWTExpired) {
    return error.claim === 'iat'
      ? { reason: 'too-old', issuedAt: dateOf(error.payload.iat), maxAgeSeconds }
      : { reason: 'expired', at: dateOf(error.payload.exp) };
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return { reason: 'wrong-issuer' };
    if (error.claim === 'aud') return { reason: 'wrong-audience' };
    return { reason: 'claims', claim: error.claim };
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys ||
    // An algorithm the trusted keys do not use (HS256, none) cannot be theirs.
    error instanceof errors.JOSEAlgNotAllowed
  )
    return { reason: 'wrong-keys' };
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSENotSupported
  )
    return { reason: 'malformed' };
  return { reason: 'unverifiable' };
}

/** Where this API's trusted keys come from, for the wrong-keys sentence. */
export interface KeySource {
  /** Locally: the DATA_DIR whose keys sign and verify tokens (bin/token.ts). */
  localDataDir?: string;
}

export function tokenRefusalMessage(refusal: TokenRefusal, keys: KeySource): string {
  switch (refusal.reason) {
    case 'malformed':
      return 'The bearer token is not a well-formed JWT.';
    case 'expired':
      return `The bearer token expired at ${refusal.at.toISOString()}; get a new one.`;
    case 'too-old':
      return `The bearer token was issued at ${refusal.issuedAt.toISOString()}, more than the ${refusal.maxAgeSeconds} seconds ago this API accepts (JWT_MAX_AGE_SECONDS); get a new one.`;
    case 'wrong-keys':
      return keys.localDataDir === undefined
        ? 'The bearer token is not signed by the keys of the issuer this API trusts.'
        : `The bearer token is not signed by the keys of this server's data folder (DATA_DIR ${keys.localDataDir}); it was made with another data folder's keys. Make one with npm run token and the same DATA_DIR.`;
    case 'wrong-issuer':
      return 'The bearer token was issued by another issuer than the one this API trusts.';
    case 'wrong-audience':
      return 'The bearer token is meant for another audience or app client than this API.';
    case 'claims':
      return `The bearer token's ${refusal.claim} claim is missing or not acceptable.`;
    case 'unverifiable':
      return "The bearer token could not be checked now (the issuer's keys are out of reach); retry shortly.";
  }
}
