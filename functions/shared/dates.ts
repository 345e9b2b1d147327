/**
 * The wire date form `/Date(<ms>)/` and its offset variant `/Date(<ms>+hhmm)/` (the .NET JSON form).
 * The offset only says in which zone the date was written; `<ms>` is always UTC milliseconds. The service
 * writes the offset form only for dates not set yet, as .NET writes DateTime.MinValue.
 */
const DATE_FORM = /^\/Date\((-?\d+)(?:([+-])(\d{2})(\d{2}))?\)\/$/;

/** .NET's DateTime.MinValue (0001-01-01T00:00:00Z), written for dates that are not set yet. */
export const UNSET_DATE = '/Date(-62135596800000+0000)/';

export function formatDate(ms: number | undefined): string {
  if (ms === undefined) return UNSET_DATE;
  if (!Number.isSafeInteger(ms)) throw new RangeError(`not an integer millisecond value: ${ms}`);
  return `/Date(${ms})/`;
}

export interface WireDate {
  ms: number;
  /** Offset in minutes east of UTC, when the text carried one. */
  offsetMinutes?: number;
}

/** Reads a wire date in either form (the local site shows the service's dates); undefined when it is not one. */
export function parseDate(text: string): WireDate | undefined {
  const match = DATE_FORM.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]);
  if (!Number.isSafeInteger(ms)) return undefined;
  if (match[2] === undefined) return { ms };
  const hours = Number(match[3]);
  const minutes = Number(match[4]);
  if (hours > 23 || minutes > 59) return undefined;
  const offset = hours * 60 + minutes;
  return { ms, offsetMinutes: match[2] === '-' ? -offset : offset };
}

/**
 * JSON.stringify writes `/` as is; the contract writes it as `\/` inside date strings. Escaping a solidus
 * is always valid JSON, so this changes the text, never the parsed value.
 */
export function escapeDateSolidus(json: string): string {
  return json.replace(/"\/Date\((-?\d+(?:[+-]\d{4})?)\)\/"/g, '"\\/Date($1)\\/"');
}
