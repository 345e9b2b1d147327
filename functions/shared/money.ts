/**
 * Money is exact: integer minor units (cents) inside, JSON numbers outside. Inputs with more than two
 * fraction digits are refused rather than rounded, so nobody is charged a price they did not set.
 */
export const MINOR_PER_UNIT = 100;

/** Converts a decimal amount to minor units, or undefined when it has more than two fraction digits. */
export function toMinorUnits(amount: number): number | undefined {
  if (!Number.isFinite(amount)) return undefined;
  const scaled = amount * MINOR_PER_UNIT;
  const rounded = Math.round(scaled);
  // Binary floating point: 19.99 * 100 is 1998.9999999999998; accept what is a cent amount within rounding noise.
  if (Math.abs(scaled - rounded) > 1e-6 * Math.max(1, Math.abs(scaled))) return undefined;
  return rounded;
}

export function fromMinorUnits(minor: number): number {
  return minor / MINOR_PER_UNIT;
}
