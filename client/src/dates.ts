/**
 * The service's dates are strings `"\/Date(<ms>)\/"` (JSON.parse leaves `/Date(<ms>)/`). Responses: the
 * strings at the paths the OpenAPI document marks as dates become `Date`s (other strings are left alone,
 * even when they look like dates). Requests: every `Date` becomes the wire string.
 */
const WIRE_DATE = /^\/Date\((-?\d+)(?:[+-]\d{4})?\)\/$/;

export const toWireDate = (date: Date): string => `/Date(${date.getTime()})/`;

export function fromWireDate(text: string): Date | undefined {
  const match = WIRE_DATE.exec(text);
  return match ? new Date(Number(match[1])) : undefined;
}

/** Converts, in place, the wire dates found at `paths` (`*`: every array element or record value). */
export function reviveDates(value: unknown, paths: ReadonlyArray<ReadonlyArray<string>>): void {
  for (const path of paths) revive(value, path, 0);
}

function revive(node: unknown, path: ReadonlyArray<string>, index: number): void {
  if (node === null || typeof node !== 'object') return;
  const container = node as Record<string, unknown>;
  const step = path[index] as string;
  const keys = step === '*' ? Object.keys(container) : [step];
  for (const key of keys) {
    const child = container[key];
    if (index < path.length - 1) revive(child, path, index + 1);
    else if (typeof child === 'string') container[key] = fromWireDate(child) ?? child;
  }
}

/** JSON text of a request body, `Date`s written as wire dates. */
export function toWireJson(body: unknown): string {
  return JSON.stringify(body, function (this: Record<string, unknown>, key, value: unknown) {
    const raw = this[key];
    return raw instanceof Date ? toWireDate(raw) : value;
  });
}
