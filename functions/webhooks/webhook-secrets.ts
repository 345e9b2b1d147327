/**
 * Webhook signing secrets: made here, answered to the caller once (on creation and rotation), and stored
 * only encrypted by KMS with the webhook's id as encryption context. A reader of the table holds ciphertext
 * that only kms:Decrypt on that key opens, and the context binds each ciphertext to its webhook: copied to
 * another webhook's record it does not decrypt. In AWS only the management functions may Encrypt and only
 * the delivery function may Decrypt (docs/design.md, Webhooks).
 */
import { randomBytes } from 'node:crypto';
import { DecryptCommand, EncryptCommand } from '@aws-sdk/client-kms';
import { kms } from '../shared/clients/kms.ts';
import { config } from '../shared/config.ts';
import { expiringCache } from '../shared/expiring-cache.ts';

/** Standard Webhooks' secret form: `whsec_` and the base64 of the HMAC key (32 random bytes here; the spec asks 24 to 64). */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;

const contextOf = (webhookId: string) => ({ WebhookId: webhookId });

/** The secret encrypted for storage (base64 of KMS's ciphertext blob). */
export async function sealSecret(webhookId: string, secret: string): Promise<string> {
  const result = await kms.send(
    new EncryptCommand({
      KeyId: config.webhookKeyId,
      Plaintext: Buffer.from(secret, 'utf8'),
      EncryptionContext: contextOf(webhookId),
    }),
  );
  if (!result.CiphertextBlob) throw new Error('KMS Encrypt answered no ciphertext');
  return Buffer.from(result.CiphertextBlob).toString('base64');
}

/**
 * How long an opened secret stays in the delivery function's memory: one KMS Decrypt per webhook and 5
 * minutes rather than one per attempt (KMS's request quota is the account's, shared by every key). The cost:
 * a secret stays in plain text in that memory up to 5 minutes after its last attempt; a rotation makes a new
 * ciphertext, so it is never used in place of a newer one, and a webhook deleted or disabled is read (and
 * not sent to) before its secret is looked for.
 */
const OPENED_SECRET_MS = 5 * 60 * 1000;
/** Opened secrets kept at most: a bound on that memory whatever the number of webhooks. */
const MAX_OPENED_SECRETS = 1_000;
/** By webhook and ciphertext; the pending Decrypt itself, so attempts under way at once share one. */
const opened = expiringCache({
  ttlMs: () => OPENED_SECRET_MS,
  maxEntries: MAX_OPENED_SECRETS,
  load: (key) => decrypt(key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)),
});

/** The secret a sealed one holds; fails (InvalidCiphertextException) for another webhook's ciphertext. */
export const openSecret = (webhookId: string, sealed: string, now = Date.now()): Promise<string> =>
  opened.get(`${webhookId}:${sealed}`, now);

async function decrypt(webhookId: string, sealed: string): Promise<string> {
  const result = await kms.send(
    new DecryptCommand({
      KeyId: config.webhookKeyId,
      CiphertextBlob: Buffer.from(sealed, 'base64'),
      EncryptionContext: contextOf(webhookId),
    }),
  );
  if (!result.Plaintext) throw new Error('KMS Decrypt answered no plaintext');
  return Buffer.from(result.Plaintext).toString('utf8');
}
