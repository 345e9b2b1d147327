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

/** The secret a sealed one holds; fails (InvalidCiphertextException) for another webhook's ciphertext. */
export async function openSecret(webhookId: string, sealed: string): Promise<string> {
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
