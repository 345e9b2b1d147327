/** The Idempotency-Key of a creating call: a v4 UUID on every platform the client runs on. */

/** A fresh UUID: `crypto.randomUUID` where present (browsers, Node), else v4 from `getRandomValues` or, last, Math.random. */
export function randomUuid(): string {
  const platform = (
    globalThis as { crypto?: { randomUUID?: () => string; getRandomValues?: (bytes: Uint8Array) => Uint8Array } }
  ).crypto;
  if (typeof platform?.randomUUID === 'function') return platform.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof platform?.getRandomValues === 'function') platform.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
