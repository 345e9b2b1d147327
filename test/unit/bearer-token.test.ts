/**
 * The bearer token rules (functions/auth/jwt.ts), against the local issuer's key pair: `exp` and `sub`
 * required, `nbf` and `iat` not in the future, a maximum age from `iat`, and a mandatory audience (an
 * `aud` value, or a Cognito access token's `token_use` and `client_id`). Unsigned variations are signed
 * with the issuer's own key, so only the claim under test differs from a token that passes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureSigningKeys,
  LOCAL_AUDIENCE,
  LOCAL_ISSUER,
  signLocalToken,
  type LocalSigningKeys,
} from '../../lib/local/signing-keys.ts';
import { verifyBearerToken } from '../../functions/auth/jwt.ts';
import { recallVerified, rememberVerified, VERIFIED_TOKEN_SECONDS } from '../../functions/auth/verified-tokens.ts';

const dir = mkdtempSync(join(tmpdir(), 'bearer-token-'));
let keys: LocalSigningKeys;
const baseline = { ...process.env };

beforeAll(async () => {
  keys = await ensureSigningKeys(dir);
  Object.assign(process.env, { JWT_ISSUER: LOCAL_ISSUER, JWT_AUDIENCE: LOCAL_AUDIENCE, JWT_JWKS_FILE: keys.jwksFile });
});
afterEach(() => {
  for (const name of ['JWT_AUDIENCE', 'JWT_CLIENT_IDS', 'JWT_MAX_AGE_SECONDS']) delete process.env[name];
  Object.assign(process.env, { JWT_AUDIENCE: LOCAL_AUDIENCE });
});
afterAll(() => {
  process.env = baseline;
  rmSync(dir, { recursive: true, force: true });
});

const now = () => Math.floor(Date.now() / 1000);

/** A token with exactly these claims (issuer added unless given), signed by the local issuer's key. */
async function signed(claims: JWTPayload): Promise<string> {
  const key = await importJWK(JSON.parse(readFileSync(keys.privateKeyFile, 'utf8')) as JWK, 'ES256');
  return new SignJWT({ iss: LOCAL_ISSUER, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'local-1', typ: 'JWT' })
    .sign(key);
}

const valid = (): JWTPayload => ({ sub: 'alice', aud: LOCAL_AUDIENCE, iat: now(), exp: now() + 3600 });
const without = (claim: keyof JWTPayload): JWTPayload =>
  Object.fromEntries(Object.entries(valid()).filter(([name]) => name !== claim));

describe('bearer token rules', () => {
  it('accepts the tokens `npm run token` signs', async () => {
    expect(await verifyBearerToken(await signLocalToken(keys, { userId: 'alice' }))).toEqual({ userId: 'alice' });
    expect(await verifyBearerToken(await signed(valid()))).toEqual({ userId: 'alice' });
  });

  it('refuses a token without exp or without sub', async () => {
    expect(await verifyBearerToken(await signed(without('exp')))).toHaveProperty('refused');
    expect(await verifyBearerToken(await signed(without('sub')))).toHaveProperty('refused');
  });

  it('refuses nbf or iat in the future, beyond the clock tolerance, and allows a few seconds of skew', async () => {
    expect(await verifyBearerToken(await signed({ ...valid(), nbf: now() + 60 }))).toHaveProperty('refused');
    expect(await verifyBearerToken(await signed({ ...valid(), iat: now() + 60 }))).toHaveProperty('refused');
    expect(await verifyBearerToken(await signed({ ...valid(), nbf: now() + 2, iat: now() + 2 }))).toEqual({
      userId: 'alice',
    });
  });

  it('refuses a token older than JWT_MAX_AGE_SECONDS (default one day) or without iat while a maximum age applies', async () => {
    const old = { ...valid(), iat: now() - 2 * 86_400 };
    expect(await verifyBearerToken(await signed(old))).toHaveProperty('refused');
    expect(await verifyBearerToken(await signed(without('iat')))).toHaveProperty('refused');
    process.env.JWT_MAX_AGE_SECONDS = '60';
    expect(await verifyBearerToken(await signed({ ...valid(), iat: now() - 120 }))).toHaveProperty('refused');
    process.env.JWT_MAX_AGE_SECONDS = '0';
    expect(await verifyBearerToken(await signed(old))).toEqual({ userId: 'alice' });
    expect(await verifyBearerToken(await signed(without('iat')))).toEqual({ userId: 'alice' });
  });

  it('refuses a token without the configured audience', async () => {
    expect(await verifyBearerToken(await signed(without('aud')))).toHaveProperty('refused');
    expect(await verifyBearerToken(await signed({ ...valid(), aud: 'another-api' }))).toHaveProperty('refused');
    expect(await verifyBearerToken(await signed({ ...valid(), aud: ['another-api', LOCAL_AUDIENCE] }))).toEqual({
      userId: 'alice',
    });
  });

  it('refuses every token when neither an audience nor a client id is configured', async () => {
    delete process.env.JWT_AUDIENCE;
    expect(await verifyBearerToken(await signed(valid()))).toHaveProperty('refused');
    expect(await verifyBearerToken(await signed(without('aud')))).toHaveProperty('refused');
  });

  it('accepts a Cognito access token (no aud) only with token_use access and an allowed client_id', async () => {
    process.env.JWT_CLIENT_IDS = 'web-client, mobile-client';
    const access = { ...without('aud'), token_use: 'access', client_id: 'mobile-client' };
    expect(await verifyBearerToken(await signed(access))).toEqual({ userId: 'alice' });
    expect(await verifyBearerToken(await signed({ ...access, client_id: 'other-client' }))).toHaveProperty('refused');
    expect(await verifyBearerToken(await signed({ ...access, token_use: 'id' }))).toHaveProperty('refused');
    expect(await verifyBearerToken(await signed(without('aud')))).toHaveProperty('refused');
    delete process.env.JWT_AUDIENCE;
    expect(await verifyBearerToken(await signed(access))).toEqual({ userId: 'alice' });
    // A token for the audience no longer counts once only client ids are configured.
    expect(await verifyBearerToken(await signed(valid()))).toHaveProperty('refused');
  });
});

describe('verified tokens are remembered, never past a rule they passed', () => {
  const rules = { issuer: LOCAL_ISSUER, audiences: [LOCAL_AUDIENCE], clientIds: [], maxAgeSeconds: 86_400 };

  it('answers a token again without its signature check, and not under other rules', async () => {
    const token = await signed(valid());
    expect(await verifyBearerToken(token)).toEqual({ userId: 'alice' });
    expect(recallVerified(token, rules)).toBe('alice');
    expect(recallVerified(token, { ...rules, audiences: ['another-api'] })).toBeUndefined();
    process.env.JWT_AUDIENCE = 'another-api';
    expect(await verifyBearerToken(token)).toHaveProperty('refused');
  });

  it('forgets a token at exp (plus the clock tolerance), at its maximum age, and after the memo time', () => {
    const at = 1_000_000_000_000;
    const seconds = at / 1000;
    rememberVerified('expiring', rules, { userId: 'a', exp: seconds + 60, iat: seconds }, at);
    expect(recallVerified('expiring', rules, at + 64_999)).toBe('a');
    expect(recallVerified('expiring', rules, at + 65_000)).toBeUndefined();
    const shortAge = { ...rules, maxAgeSeconds: 30 };
    rememberVerified('ageing', shortAge, { userId: 'b', exp: seconds + 3600, iat: seconds - 10 }, at);
    expect(recallVerified('ageing', shortAge, at + 24_999)).toBe('b');
    expect(recallVerified('ageing', shortAge, at + 25_000)).toBeUndefined();
    rememberVerified('long', rules, { userId: 'c', exp: seconds + 86_400, iat: seconds }, at);
    expect(recallVerified('long', rules, at + VERIFIED_TOKEN_SECONDS * 1000 - 1)).toBe('c');
    expect(recallVerified('long', rules, at + VERIFIED_TOKEN_SECONDS * 1000)).toBeUndefined();
  });

  it('never remembers a refused token', async () => {
    const token = await signed({ ...valid(), aud: 'another-api' });
    expect(await verifyBearerToken(token)).toHaveProperty('refused');
    expect(recallVerified(token, rules)).toBeUndefined();
  });
});
