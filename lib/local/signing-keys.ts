/**
 * The local token issuer: an ES256 key pair under DATA_DIR/keys, generated on first use. The authorizer
 * verifies with the public JWKS file exactly as it verifies a real issuer's JWKS in AWS.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';

export const LOCAL_ISSUER = 'https://issuer.local.photo-commerce';
export const LOCAL_AUDIENCE = 'photo-commerce-api';
const KEY_ID = 'local-1';

export interface LocalSigningKeys {
  jwksFile: string;
  privateKeyFile: string;
}

export async function ensureSigningKeys(dataDir: string): Promise<LocalSigningKeys> {
  const dir = join(dataDir, 'keys');
  const jwksFile = join(dir, 'jwks.json');
  const privateKeyFile = join(dir, 'private-key.jwk.json');
  if (!existsSync(jwksFile) || !existsSync(privateKeyFile)) {
    mkdirSync(dir, { recursive: true });
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid: KEY_ID, alg: 'ES256', use: 'sig' };
    writeFileSync(privateKeyFile, JSON.stringify({ ...(await exportJWK(privateKey)), kid: KEY_ID, alg: 'ES256' }), {
      mode: 0o600,
    });
    writeFileSync(jwksFile, JSON.stringify({ keys: [publicJwk] }));
  }
  return { jwksFile, privateKeyFile };
}

export interface TokenOptions {
  userId: string;
  ttlSeconds?: number;
  issuer?: string;
  audience?: string;
}

export async function signLocalToken(keys: LocalSigningKeys, options: TokenOptions): Promise<string> {
  const jwk = JSON.parse(readFileSync(keys.privateKeyFile, 'utf8')) as JWK;
  const key = await importJWK(jwk, 'ES256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: KEY_ID, typ: 'JWT' })
    .setSubject(options.userId)
    .setIssuer(options.issuer ?? LOCAL_ISSUER)
    .setAudience(options.audience ?? LOCAL_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.ttlSeconds ?? 3600))
    .sign(key);
}
