/**
 * Money is exact: integer minor units (cents) inside, JSON numbers outside. Inputs with more than two
 * fraction digits are refused rather than rounded, so nobody is charged a price they did not set. The
 * decision is taken on the amount's decimal text, never on a float comparison; the body parser has
 * already refused numbers whose text a double does not hold exactly (functions/http/json.ts).
 */
import { parseDecimal } from './decimal.ts';

export const MINOR_PER_UNIT = 100;
const FRACTION_DIGITS = 2;

/** Converts a decimal amount to minor units, or undefined when it has more than two fraction digits. */
export function toMinorUnits(amount: number): number | undefined {
  if (!Number.isFinite(amount)) return undefined;
  // String(amount) is the shortest text that reads back as this double: exactly 19.99 for 19.99.
  const decimal = parseDecimal(String(amount));
  if (!decimal || decimal.exponent < -FRACTION_DIGITS) return undefined;
  const minor = Number(`${decimal.digits || '0'}e${decimal.exponent + FRACTION_DIGITS}`);
  if (!Number.isSafeInteger(minor)) return undefined;
  return decimal.negative ? -minor : minor;
}

export function fromMinorUnits(minor: number): number {
  return minor / MINOR_PER_UNIT;
}
