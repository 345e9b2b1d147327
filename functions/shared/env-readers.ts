/**
 * How functions read their environment: each variable on its first use, kept (Lambda's environment never
 * changes), an empty value read as unset. The settings themselves are functions/shared/config.ts.
 */
export function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function requiredEnv(name: string): string {
  const value = env(name);
  if (value === undefined) throw new Error(`environment variable ${name} is not set`);
  return value;
}

export function intEnv(name: string, fallback: number): number {
  const value = env(name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0)
    throw new Error(`environment variable ${name} must be a non-negative integer`);
  return parsed;
}

export function listEnvText(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export const listEnv = (name: string): string[] => listEnvText(env(name) ?? '');

/** Values read so far, by property: each is read on its first use and kept. */
let read = new Map<string, unknown>();

/**
 * An object whose properties are read from the environment on first use and kept: Lambda's environment never
 * changes, and a lookup in it costs a request more than the value (figure 2). A property that is never used
 * is never read, so a function fails only on the variables it needs.
 */
export function readOnce<T extends Record<string, () => unknown>>(
  readers: T,
): { readonly [K in keyof T]: ReturnType<T[K]> } {
  return Object.defineProperties(
    {},
    Object.fromEntries(
      Object.entries(readers).map(([name, reader]) => [
        name,
        {
          get: () => {
            if (!read.has(name)) read.set(name, reader());
            return read.get(name);
          },
          enumerable: true,
        },
      ]),
    ),
  ) as { readonly [K in keyof T]: ReturnType<T[K]> };
}

/** Reads the environment again on next use: for the local stack and tests, which change it (Lambda never does). */
export function reloadConfig(): void {
  read = new Map();
}
