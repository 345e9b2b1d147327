/**
 * Bearer tokens that verified recently, so a caller's next requests skip the signature check (an ECDSA or
 * RSA verification is most of the authorizer's CPU). An entry is found only by the exact token string and
 * the exact rules it passed (issuer, audiences, client ids, maximum age), and it is kept only while every
 * time rule it passed still holds: before `exp`, within the maximum age, and at most
 * `VERIFIED_TOKEN_SECONDS`, so a signing key withdrawn from the JWKS stops its tokens at most that much
 * later (API Gateway's own authorizer cache keeps answers as long by default). Refused tokens are never kept.
 */
import { CLOCK_TOLERANCE_SECONDS } from './claims.ts';

export const VERIFIED_TOKEN_SECONDS = 300;
/** Bounds the memory: the oldest entry goes first. */
const MAX_ENTRIES = 10_000;

interface Verified {
  userId: string;
  /** Epoch ms before which jose would still accept the token under the same rules. */
  validUntil: number;
}

const verified = new Map<string, Verified>();

/** The rules a token is checked against, as part of its key: a token that passed other rules is not reused. */
export interface TokenRules {
  issuer: string;
  audiences: readonly string[];
  clientIds: readonly string[];
  maxAgeSeconds: number;
}

const keyOf = (token: string, rules: TokenRules) =>
  JSON.stringify([rules.issuer, rules.audiences, rules.clientIds, rules.maxAgeSeconds, token]);

export function recallVerified(token: string, rules: TokenRules, now = Date.now()): string | undefined {
  const key = keyOf(token, rules);
  const entry = verified.get(key);
  if (entry === undefined) return undefined;
  if (now < entry.validUntil) return entry.userId;
  verified.delete(key);
  return undefined;
}

/**
 * Keeps a token that just passed. jose accepts while `now - tolerance < exp` and `now - iat <= maxAge +
 * tolerance` (whole seconds), so a strictly earlier instant in ms is always accepted too.
 */
export function rememberVerified(
  token: string,
  rules: TokenRules,
  claims: { userId: string; exp: number; iat?: number },
  now = Date.now(),
): void {
  const limits = [(claims.exp + CLOCK_TOLERANCE_SECONDS) * 1000, now + VERIFIED_TOKEN_SECONDS * 1000];
  if (rules.maxAgeSeconds > 0 && claims.iat !== undefined)
    limits.push((claims.iat + rules.maxAgeSeconds + CLOCK_TOLERANCE_SECONDS) * 1000);
  if (verified.size >= MAX_ENTRIES) verified.delete(verified.keys().next().value as string);
  verified.set(keyOf(token, rules), { userId: claims.userId, validUntil: Math.min(...limits) });
}
