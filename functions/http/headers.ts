/**
 * HTTP header names are case-insensitive, and API Gateway passes them as the client wrote them: every
 * lookup of a request header goes through here.
 */
export type RequestHeaders = Record<string, string | undefined> | null | undefined;

/** The value of header `name` whatever its case, or undefined when it is absent. */
export function headerOf(headers: RequestHeaders, name: string): string | undefined {
  const lowerName = name.toLowerCase();
  return Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === lowerName)?.[1] ?? undefined;
}

/** The headers with lower-case names, as own properties (a `__proto__` header stays a plain key). */
export function lowerCaseHeaders(headers: RequestHeaders): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
}
