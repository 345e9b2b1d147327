/**
 * KMS's Encrypt, Decrypt and GenerateMac, locally, behind an HTTP front that the real @aws-sdk/client-kms reaches (its
 * JSON protocol, `TrentService.*` targets), as the local S3 front serves the S3 client. One symmetric key,
 * kept in DATA_DIR (created on first start, readable by its owner only), so sealed webhook secrets outlive a
 * restart. AES-256-GCM with the encryption context as additional authenticated data: as in KMS, a
 * ciphertext decrypts only with the context it was sealed with, and a tampered one is refused
 * (InvalidCiphertextException). Only the key's id, ARN or alias is accepted (NotFoundException otherwise).
 * A second key, an HMAC key as KMS's `HMAC_256`, answers GenerateMac (HMAC-SHA-256 of the message): the
 * artwork links' daily signing keys are derived with it.
 * It is not a store of secrets: the key sits next to the data, which is what local development wants.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { LOCAL_ACCOUNT, LOCAL_REGION, type ServiceCall } from './aws-call-log.ts';
import { writeFileAtomically } from './atomic-file.ts';
import { AwsJsonError, signerOf, startAwsJsonFront } from './aws-json-front.ts';

/** The alias the local stack names in WEBHOOK_KMS_KEY_ID. */
export const LOCAL_WEBHOOK_KEY_ALIAS = 'alias/photo-commerce-webhooks';
/** The alias the local stack names in ARTWORK_LINK_KEY_ID. */
export const LOCAL_ARTWORK_LINK_KEY_ALIAS = 'alias/photo-commerce-artwork-links';

export interface LocalKms {
  /** The endpoint the SDK reaches it at (AWS_ENDPOINT_URL_KMS). */
  endpoint: string;
  keyArn: string;
  close(): Promise<void>;
}

interface KeyFile {
  keyId: string;
  /** base64 of the 32-byte AES key. */
  material: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A key of the data folder (`kms-key.json`, the HMAC key's `kms-mac-key.json`), made on first use. */
function loadKey(dataDir: string, name: string): KeyFile {
  const file = join(dataDir, name);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as KeyFile;
  const key: KeyFile = { keyId: randomUUID(), material: randomBytes(32).toString('base64') };
  writeFileAtomically(file, JSON.stringify(key));
  return key;
}

/** The context as KMS binds it: the same pairs in any order are the same context. */
const contextBytes = (context: Record<string, string> | undefined) =>
  Buffer.from(JSON.stringify(Object.entries(context ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));

/** The fields of Encrypt and Decrypt requests the stand-in reads (blobs are base64 in KMS's JSON protocol). */
interface KmsRequest {
  KeyId?: string;
  Plaintext?: string;
  /** GenerateMac's message (base64) and algorithm. */
  Message?: string;
  MacAlgorithm?: string;
  CiphertextBlob?: string;
  EncryptionContext?: Record<string, string>;
}

/**
 * The condition keys KMS gives a call with `context`: its keys, and each pair as `kms:EncryptionContext:<key>`;
 * none without a context (the keys are absent then, not empty).
 */
const contextConditions = (context: Record<string, string> = {}): Record<string, string | string[]> =>
  Object.keys(context).length === 0
    ? {}
    : {
        'kms:EncryptionContextKeys': Object.keys(context),
        ...Object.fromEntries(Object.entries(context).map(([key, value]) => [`kms:EncryptionContext:${key}`, value])),
      };

/** `onCall` is told of every call, by the access key that signed it (the IAM check's record). */
export async function startLocalKms(
  dataDir: string,
  port = 0,
  onCall?: (call: ServiceCall) => void,
): Promise<LocalKms> {
  const key = loadKey(dataDir, 'kms-key.json');
  const material = Buffer.from(key.material, 'base64');
  const keyArn = `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT}:key/${key.keyId}`;
  const macKey = loadKey(dataDir, 'kms-mac-key.json');
  const macKeyArn = `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT}:key/${macKey.keyId}`;
  const macKeyNames = new Set([
    macKey.keyId,
    macKeyArn,
    LOCAL_ARTWORK_LINK_KEY_ALIAS,
    `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${LOCAL_ARTWORK_LINK_KEY_ALIAS}`,
  ]);
  const known = new Set([
    key.keyId,
    keyArn,
    LOCAL_WEBHOOK_KEY_ALIAS,
    `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${LOCAL_WEBHOOK_KEY_ALIAS}`,
  ]);
  const report = (operation: 'Encrypt' | 'Decrypt' | 'GenerateMac', input: KmsRequest, request: IncomingMessage) =>
    onCall?.({
      accessKeyId: signerOf(request),
      action: `kms:${operation}`,
      // A Decrypt's key is the one that sealed the blob: the encryption key, as for Encrypt.
      resource: operation === 'GenerateMac' ? macKeyArn : keyArn,
      via: operation,
      context: contextConditions(input.EncryptionContext),
    });
  const checkKey = (keyId: string | undefined) => {
    if (keyId !== undefined && !known.has(keyId))
      throw new AwsJsonError('NotFoundException', `Key '${keyId}' does not exist`);
  };

  const operations: Record<string, (input: KmsRequest, request: IncomingMessage) => Record<string, unknown>> = {
    Encrypt(input, request) {
      report('Encrypt', input, request);
      if (input.KeyId === undefined) throw new AwsJsonError('ValidationException', 'KeyId is required');
      checkKey(input.KeyId);
      const plaintext = Buffer.from(input.Plaintext ?? '', 'base64');
      if (plaintext.length === 0 || plaintext.length > 4096)
        throw new AwsJsonError('ValidationException', 'Plaintext must be 1 to 4096 bytes');
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', material, iv);
      cipher.setAAD(contextBytes(input.EncryptionContext));
      const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return {
        CiphertextBlob: Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64'),
        KeyId: keyArn,
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      };
    },
    Decrypt(input, request) {
      report('Decrypt', input, request);
      checkKey(input.KeyId);
      const blob = Buffer.from(input.CiphertextBlob ?? '', 'base64');
      try {
        const decipher = createDecipheriv('aes-256-gcm', material, blob.subarray(0, IV_BYTES));
        decipher.setAuthTag(blob.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        decipher.setAAD(contextBytes(input.EncryptionContext));
        const plaintext = Buffer.concat([decipher.update(blob.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
        return { Plaintext: plaintext.toString('base64'), KeyId: keyArn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
      } catch {
        throw new AwsJsonError('InvalidCiphertextException', 'The ciphertext or its encryption context is not valid');
      }
    },
    GenerateMac(input, request) {
      report('GenerateMac', input, request);
      if (input.KeyId === undefined || !macKeyNames.has(input.KeyId))
        throw new AwsJsonError('NotFoundException', `Key '${input.KeyId}' does not exist`);
      if (input.MacAlgorithm !== 'HMAC_SHA_256')
        throw new AwsJsonError('InvalidKeyUsageException', `${input.MacAlgorithm} is not this key's MAC algorithm`);
      const message = Buffer.from(input.Message ?? '', 'base64');
      if (message.length === 0 || message.length > 4096)
        throw new AwsJsonError('ValidationException', 'Message must be 1 to 4096 bytes');
      const mac = createHmac('sha256', Buffer.from(macKey.material, 'base64')).update(message).digest();
      return { Mac: mac.toString('base64'), MacAlgorithm: 'HMAC_SHA_256', KeyId: macKeyArn };
    },
  };

  const front = await startAwsJsonFront('TrentService.', operations, port);
  return { endpoint: front.endpoint, keyArn, close: front.close };
}
