/**
 * Why a credential is refused, in the words the client is told: jose's errors mapped to typed reasons
 * (functions/auth/token-refusal.ts), the sentences for each, and the hints for a credential under the
 * wrong header (functions/auth/credential-headers.ts). The tokens are real, signed by a local issuer's
 * key pair or by another data folder's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureSigningKeys,
  LOCAL_AUDIENCE,
  LOCAL_ISSUER,
  signLocalToken,
  type LocalSigningKeys,
} from '../../lib/local/signing-keys.ts';
import { verifyBearerToken } from '../../functions/auth/jwt.ts';
import { tokenRefusalMessage, tokenRefusalOf, type TokenRefusal } from '../../functions/auth/token-refusal.ts';
import { bearerTokenOf, misplacedCredentialOf, misplacedTokenOf } from '../../functions/auth/credential-headers.ts';
import { bearerChallenge, forbiddenMessage } from '../../functions/auth/refusal.ts';

const dir = mkdtempSync(join(tmpdir(), 'credential-refusals-'));
const otherDir = mkdtempSync(join(tmpdir(), 'credential-refusals-other-'));
let keys: LocalSigningKeys;
let otherKeys: LocalSigningKeys;
const baseline = { ...process.env };
const API_KEY = '0f8fad5b-d9cb-469f-a165-70867728950e';

beforeAll(async () => {
  keys = await ensureSigningKeys(dir);
  otherKeys = await ensureSigningKeys(otherDir);
  Object.assign(process.env, { JWT_ISSUER: LOCAL_ISSUER, JWT_AUDIENCE: LOCAL_AUDIENCE, JWT_JWKS_FILE: keys.jwksFile });
});
afterAll(() => {
  process.env = baseline;
  rmSync(dir, { recursive: true, force: true });
  rmSync(otherDir, { recursive: true, force: true });
});

const now = () => Math.floor(Date.now() / 1000);

async function signed(claims: JWTPayload, kid = 'local-1'): Promise<string> {
  const key = await importJWK(JSON.parse(readFileSync(keys.privateKeyFile, 'utf8')) as JWK, 'ES256');
  return new SignJWT({ iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE, sub: 'alice', iat: now(), exp: now() + 3600, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
    .sign(key);
}

const refusalOf = async (token: string): Promise<TokenRefusal | undefined> => {
  const verified = await verifyBearerToken(token);
  return 'refused' in verified ? verified.refused : undefined;
};

describe("jose's errors as reasons", () => {
  it('expired: when, from exp', async () => {
    const exp = now() - 600;
    expect(await refusalOf(await signed({ exp, iat: exp - 60 }))).toEqual({
      reason: 'expired',
      at: new Date(exp * 1000),
    });
  });

  it('older than JWT_MAX_AGE_SECONDS: issued when, and the limit', async () => {
    const iat = now() - 2 * 86_400;
    expect(await refusalOf(await signed({ iat }))).toEqual({
      reason: 'too-old',
      issuedAt: new Date(iat * 1000),
      maxAgeSeconds: 86_400,
    });
  });

  it("signed by another data folder's keys, or by a key id the JWKS lacks: wrong keys", async () => {
    expect(await refusalOf(await signLocalToken(otherKeys, { userId: 'alice' }))).toEqual({ reason: 'wrong-keys' });
    expect(await refusalOf(await signed({}, 'another-kid'))).toEqual({ reason: 'wrong-keys' });
    const hs256 = await new SignJWT({ sub: 'alice', iss: LOCAL_ISSUER, aud: LOCAL_AUDIENCE })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new Uint8Array(32));
    expect(await refusalOf(hs256)).toEqual({ reason: 'wrong-keys' });
  });

  it('another issuer, another audience, a claim missing', async () => {
    expect(await refusalOf(await signed({ iss: 'https://elsewhere.example' }))).toEqual({ reason: 'wrong-issuer' });
    expect(await refusalOf(await signed({ aud: 'another-api' }))).toEqual({ reason: 'wrong-audience' });
    expect(await refusalOf(await signed({ sub: undefined }))).toEqual({ reason: 'claims', claim: 'sub' });
    expect(await refusalOf(await signed({ nbf: now() + 600 }))).toEqual({ reason: 'claims', claim: 'nbf' });
  });

  it('not a JWT: malformed; an unexpected failure (keys out of reach): unverifiable', async () => {
    expect(await refusalOf('not-a-jwt')).toEqual({ reason: 'malformed' });
    expect(await refusalOf('a.b.c')).toEqual({ reason: 'malformed' });
    expect(tokenRefusalOf(new Error('fetch failed'), 0)).toEqual({ reason: 'unverifiable' });
  });
});

describe('the sentences', () => {
  const all: TokenRefusal[] = [
    { reason: 'malformed' },
    { reason: 'expired', at: new Date('2026-01-02T03:04:05Z') },
    { reason: 'too-old', issuedAt: new Date('2026-01-01T00:00:00Z'), maxAgeSeconds: 86_400 },
    { reason: 'wrong-keys' },
    { reason: 'wrong-issuer' },
    { reason: 'wrong-audience' },
    { reason: 'claims', claim: 'nbf' },
    { reason: 'unverifiable' },
  ];

  it('say when a token expired, and name the DATA_DIR locally', () => {
    expect(tokenRefusalMessage(all[1] as TokenRefusal, {})).toContain('expired at 2026-01-02T03:04:05.000Z');
    expect(tokenRefusalMessage(all[2] as TokenRefusal, {})).toContain('JWT_MAX_AGE_SECONDS');
    expect(tokenRefusalMessage({ reason: 'wrong-keys' }, { localDataDir: '/data/one' })).toContain(
      'DATA_DIR /data/one',
    );
    expect(tokenRefusalMessage({ reason: 'wrong-keys' }, {})).not.toContain('DATA_DIR');
  });

  it('fit a quoted header parameter and a JSON string unescaped: no quotes, no backslashes', () => {
    for (const refusal of all) expect(tokenRefusalMessage(refusal, { localDataDir: '/d' })).not.toMatch(/["\\]/);
    expect(forbiddenMessage('catalog', { apiKey: { id: 'k', name: 'n', scope: 'site' } })).toBe(
      'This endpoint takes an API key of scope catalog (X-SERVICE-API-Key); the request carried an API key of scope site.',
    );
    expect(forbiddenMessage('user', { apiKey: { id: 'k', name: 'n', scope: 'library' } })).not.toMatch(/["\\]/);
  });

  it('bearer challenges follow RFC 6750', () => {
    expect(bearerChallenge()).toBe('Bearer realm="photo-commerce"');
    expect(bearerChallenge('It "expired"')).toBe(
      'Bearer realm="photo-commerce", error="invalid_token", error_description="It expired"',
    );
  });
});

describe('credentials under the wrong header', () => {
  const messageOf = (result: ReturnType<typeof bearerTokenOf>) => ('refused' in result ? result.refused.message : '');

  it('Authorization: another scheme, no scheme, or an API key', async () => {
    expect(messageOf(bearerTokenOf('Basic dXNlcjpwYXNz'))).toContain('the Basic scheme is not accepted');
    expect(messageOf(bearerTokenOf(await signed({})))).toContain('lacks its scheme');
    expect(messageOf(bearerTokenOf(API_KEY))).toContain('X-SERVICE-API-Key');
    expect(messageOf(bearerTokenOf(`Bearer ${API_KEY}`))).toContain('X-SERVICE-API-Key');
    expect(bearerTokenOf('Bearer abc.def.ghi')).toEqual({ token: 'abc.def.ghi' });
  });

  it('a bearer token in X-SERVICE-API-Key', async () => {
    expect(misplacedTokenOf(`Bearer ${await signed({})}`)?.message).toContain('Authorization: Bearer <token>');
    expect(misplacedTokenOf(API_KEY)).toBeUndefined();
  });

  it('x-api-key and the like: which header to use, by what the value looks like, never the value', async () => {
    const key = misplacedCredentialOf({ 'X-Api-Key': API_KEY });
    expect(key?.message).toBe(
      'API keys do not go in the x-api-key header; send an API key in the X-SERVICE-API-Key header.',
    );
    const token = misplacedCredentialOf({ 'x-access-token': await signed({}) });
    expect(token?.message).toContain('Authorization: Bearer <token>');
    expect(token?.challenge).toBe('Bearer realm="photo-commerce"');
    expect(misplacedCredentialOf({ 'content-type': 'application/json' })).toBeUndefined();
  });
});
