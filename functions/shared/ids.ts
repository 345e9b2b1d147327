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
