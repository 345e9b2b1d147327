/**
 * Exact decimal values of number texts (JSON number grammar, and what `String(number)` writes), compared
 * digit by digit: no floating point, so 9999.999 is never mistaken for 10000.00.
 */

/** A decimal value as `digits × 10^exponent`, normalized: no leading or trailing zeros in `digits` ('' for zero). */
export interface Decimal {
  negative: boolean;
  digits: string;
  exponent: number;
}

const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The exact value of a number text, or undefined when the text is not one (Infinity, NaN). */
export function parseDecimal(text: string): Decimal | undefined {
  const match = NUMBER_TEXT.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = '', exponent = '0'] = match as unknown as [
    string,
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  const all = `${whole}${fraction}`.replace(/^0+/, '');
  const digits = all.replace(/0+$/, '');
  if (digits === '') return { negative: false, digits: '', exponent: 0 };
  return {
    negative: sign === '-',
    digits,
    exponent: Number(exponent) - fraction.length + (all.length - digits.length),
  };
}

/** True when both texts denote the same decimal value. */
export function sameDecimal(a: Decimal, b: Decimal): boolean {
  return a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent;
}

/**
 * True when a JSON number's source text is exactly the value JavaScript parsed it to: `String(value)` is
 * the shortest text that reads back as the same double, so a source with digits the double cannot hold
 * (0.1000000000000000000001, 19.990000000000001) denotes another value than the number the code sees.
 */
export function holdsExactly(value: number, source: string): boolean {
  const written = parseDecimal(String(value));
  const read = parseDecimal(source);
  return written !== undefined && read !== undefined && sameDecimal(written, read);
}
