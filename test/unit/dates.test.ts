import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { escapeDateSolidus, formatDate, parseDate } from '../../functions/shared/dates.ts';

describe('wire dates', () => {
  it('writes UTC milliseconds, and unset dates as the .NET minimum date in offset form', () => {
    expect(formatDate(1763700000000)).toBe('/Date(1763700000000)/');
    expect(formatDate(0)).toBe('/Date(0)/');
    expect(formatDate(-1)).toBe('/Date(-1)/');
    expect(formatDate(undefined)).toBe('/Date(-62135596800000+0000)/');
    // 0001-01-01T00:00:00Z, DateTime.MinValue.
    expect(new Date(-62135596800000).toISOString()).toBe('0001-01-01T00:00:00.000Z');
  });

  it('reads both forms, negative milliseconds and either offset sign', () => {
    expect(parseDate('/Date(1763700000000)/')).toEqual({ ms: 1763700000000 });
    expect(parseDate('/Date(-62135596800000+0000)/')).toEqual({ ms: -62135596800000, offsetMinutes: 0 });
    expect(parseDate('/Date(-1000-0130)/')).toEqual({ ms: -1000, offsetMinutes: -90 });
    expect(parseDate('/Date(1763700000000+1245)/')).toEqual({ ms: 1763700000000, offsetMinutes: 765 });
    expect(parseDate('/Date(0-0000)/')?.offsetMinutes === 0).toBe(true);
  });

  it('refuses what is not a wire date', () => {
    for (const bad of [
      '',
      '/Date()/',
      '/Date(12.5)/',
      '/Date(1+100)/',
      '/Date(1+2400)/',
      '/Date(1+0060)/',
      'Date(1)',
      '/Date(1)',
      '/Date(99999999999999999999)/',
      '/Date(1 )/',
    ]) {
      expect(parseDate(bad), bad).toBeUndefined();
    }
  });

  it('round-trips any millisecond value', () => {
    const ms = fc.integer({ min: -62135596800000, max: 253402300799999 });
    fc.assert(fc.property(ms, (value) => parseDate(formatDate(value))?.ms === value));
  });

  it('escapes the solidus in JSON text for both forms without changing the parsed value', () => {
    const body = { CreatedDateUtc: formatDate(1763700000000), CompletedDateUtc: formatDate(undefined), Note: 'a/b' };
    const text = escapeDateSolidus(JSON.stringify(body));
    expect(text).toBe(
      '{"CreatedDateUtc":"\\/Date(1763700000000)\\/","CompletedDateUtc":"\\/Date(-62135596800000+0000)\\/","Note":"a/b"}',
    );
    expect(JSON.parse(text)).toEqual(body);
  });

  it('refuses to write a non-integer millisecond value', () => {
    expect(() => formatDate(1.5)).toThrow(RangeError);
    expect(() => formatDate(Number.NaN)).toThrow(RangeError);
  });
});
