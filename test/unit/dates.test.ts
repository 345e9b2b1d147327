import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { escapeDateSolidus, formatDate, parseDate, UNSET_DATE, UNSET_DATE_MS } from '../../functions/shared/dates.ts';

describe('wire dates', () => {
  it('writes UTC milliseconds, and unset dates as the .NET minimum date in offset form', () => {
    expect(formatDate(1763700000000)).toBe('/Date(1763700000000)/');
    expect(formatDate(0)).toBe('/Date(0)/');
    expect(formatDate(-1)).toBe('/Date(-1)/');
    expect(formatDate(undefined)).toBe('/Date(-62135596800000+0000)/');
    expect(UNSET_DATE).toBe(formatDate(UNSET_DATE_MS, 0));
    // 0001-01-01T00:00:00Z, DateTime.MinValue.
    expect(new Date(UNSET_DATE_MS).toISOString()).toBe('0001-01-01T00:00:00.000Z');
  });

  it('writes offsets as +hhmm / -hhmm', () => {
    expect(formatDate(1763700000000, 60)).toBe('/Date(1763700000000+0100)/');
    expect(formatDate(1763700000000, -(5 * 60 + 30))).toBe('/Date(1763700000000-0530)/');
    expect(formatDate(-62135596800000, 0)).toBe('/Date(-62135596800000+0000)/');
  });

  it('reads both forms, negative milliseconds and either offset sign', () => {
    expect(parseDate('/Date(1763700000000)/')).toEqual({ ms: 1763700000000 });
    expect(parseDate('/Date(-62135596800000+0000)/')).toEqual({ ms: -62135596800000, offsetMinutes: 0 });
    expect(parseDate('/Date(-1000-0130)/')).toEqual({ ms: -1000, offsetMinutes: -90 });
    expect(parseDate('/Date(1763700000000+1245)/')).toEqual({ ms: 1763700000000, offsetMinutes: 765 });
    expect(parseDate('/Date(0-0000)/')?.offsetMinutes === 0).toBe(true);
  });

  it('refuses what is not a wire date', () => {
    for (const bad of ['', '/Date()/', '/Date(12.5)/', '/Date(1+100)/', '/Date(1+2400)/', '/Date(1+0060)/', 'Date(1)', '/Date(1)', '/Date(99999999999999999999)/', '/Date(1 )/']) {
      expect(parseDate(bad), bad).toBeUndefined();
    }
  });

  it('round-trips any millisecond value and offset', () => {
    const ms = fc.integer({ min: -62135596800000, max: 253402300799999 });
    const offset = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
    fc.assert(fc.property(ms, (value) => parseDate(formatDate(value))?.ms === value));
    fc.assert(
      fc.property(ms, offset, (value, minutes) => {
        const parsed = parseDate(formatDate(value, minutes));
        expect(parsed?.ms).toBe(value);
        expect(parsed?.offsetMinutes === minutes).toBe(true);
      }),
    );
  });

  it('escapes the solidus in JSON text for both forms without changing the parsed value', () => {
    const body = { CreatedDateUtc: formatDate(1763700000000), CompletedDateUtc: formatDate(undefined), Note: 'a/b' };
    const text = escapeDateSolidus(JSON.stringify(body));
    expect(text).toBe('{"CreatedDateUtc":"\\/Date(1763700000000)\\/","CompletedDateUtc":"\\/Date(-62135596800000+0000)\\/","Note":"a/b"}');
    expect(JSON.parse(text)).toEqual(body);
  });

  it('refuses to write a non-integer millisecond value', () => {
    expect(() => formatDate(1.5)).toThrow(RangeError);
    expect(() => formatDate(Number.NaN)).toThrow(RangeError);
  });
});
