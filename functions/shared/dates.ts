/**
 * The wire date form `/Date(<ms>)/` and its offset variant `/Date(<ms>+hhmm)/` (the .NET JSON form).
 * The offset only says in which zone the date was written; `<ms>` is always UTC milliseconds.
 */
const DATE_FORM = /^\/Date\((-?\d+)(?:([+-])(\d{2})(\d{2}))?\)\/$/;

/** .NET's DateTime.MinValue, written for dates that are not set yet. */
export const UNSET_DATE = '/Date(-62135596800000+0000)/';
export const UNSET_DATE_MS = -62135596800000;

export interface WireDate {
  ms: number;
  /** Offset in minutes east of UTC, when the text carried one. */
  offsetMinutes?: number;
}

export function formatDate(ms: number | undefined, offsetMinutes?: number): string {
  if (ms === undefined) return UNSET_DATE;
  if (!Number.isSafeInteger(ms)) throw new RangeError(`not an integer millisecond value: ${ms}`);
  if (offsetMinutes === undefined) return `/Date(${ms})/`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `/Date(${ms}${sign}${hh}${mm})/`;
}

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
