import { randomBytes, randomUUID } from 'node:crypto';

/** A new guid in the contract's form: 32 lowercase hex characters, no hyphens. */
export function newGuid(): string {
  return randomUUID().replace(/-/g, '');
}

/** An unguessable 128-bit token in 32 lowercase hex (checkout ids, builder tokens). */
export function newSecretId(): string {
  return randomBytes(16).toString('hex');
}

const GUID_FORMS = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** Normalizes a 32-hex or 36-char hyphenated guid to 32 lowercase hex; undefined when it is neither. */
export function normalizeGuid(text: string): string | undefined {
  return GUID_FORMS.test(text) ? text.replace(/-/g, '').toLowerCase() : undefined;
}

/** The 36-char hyphenated form of a 32-hex guid. */
export function hyphenateGuid(guid: string): string {
  return `${guid.slice(0, 8)}-${guid.slice(8, 12)}-${guid.slice(12, 16)}-${guid.slice(16, 20)}-${guid.slice(20)}`;
}

/**
 * A time-ordered guid (UUID version 7 layout, 32 hex): 48 bits of epoch ms, then random bits. Sorting the
 * guids as text sorts them by creation time, so a user's orders and baskets read newest first straight
 * from the key.
 */
export function timeOrderedGuid(epochMs: number, random: Uint8Array): string {
  if (!Number.isSafeInteger(epochMs) || epochMs < 0 || epochMs >= 2 ** 48)
    throw new RangeError(`epoch ms out of range: ${epochMs}`);
  if (random.length < 10) throw new RangeError('timeOrderedGuid needs 10 random bytes');
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 6; i++) bytes[i] = Math.floor(epochMs / 2 ** (8 * (5 - i))) % 256;
  bytes.set(random.subarray(0, 10), 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return Buffer.from(bytes).toString('hex');
}
