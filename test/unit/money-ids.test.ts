import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromMinorUnits, toMinorUnits } from '../../functions/shared/money.ts';
import { holdsExactly, parseDecimal } from '../../functions/shared/decimal.ts';
import { hyphenateGuid, newGuid, newSecretId, normalizeGuid } from '../../functions/shared/ids.ts';

describe('money', () => {
  it('converts two-digit amounts exactly and refuses finer ones', () => {
    expect(toMinorUnits(19.99)).toBe(1999);
    expect(toMinorUnits(12)).toBe(1200);
    expect(toMinorUnits(999.0)).toBe(99900);
    expect(toMinorUnits(-0)).toBe(0);
    // Decided on the decimal text, never within a float tolerance: these are not cent amounts.
    expect(toMinorUnits(0.1 + 0.2)).toBeUndefined();
    expect(toMinorUnits(9999.999)).toBeUndefined();
    expect(toMinorUnits(1e-3)).toBeUndefined();
    expect(toMinorUnits(1.005)).toBeUndefined();
    expect(toMinorUnits(Number.NaN)).toBeUndefined();
    expect(toMinorUnits(Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('round-trips every cent amount up to a billion', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_000_000 }),
        (minor) => toMinorUnits(fromMinorUnits(minor)) === minor,
      ),
    );
  });
});

describe('decimal texts', () => {
  it('read the exact value of a number text, exponent forms included', () => {
    expect(parseDecimal('9.99e2')).toEqual({ negative: false, digits: '999', exponent: 0 });
    expect(parseDecimal('1e-3')).toEqual({ negative: false, digits: '1', exponent: -3 });
    expect(parseDecimal('-0.0')).toEqual({ negative: false, digits: '', exponent: 0 });
    expect(parseDecimal('1200')).toEqual({ negative: false, digits: '12', exponent: 2 });
    expect(parseDecimal('Infinity')).toBeUndefined();
  });

  it('tell a source text the double holds from one it does not', () => {
    expect(holdsExactly(9999.999, '9999.999')).toBe(true);
    expect(holdsExactly(999, '9.99e2')).toBe(true);
    expect(holdsExactly(10.5, '10.500')).toBe(true);
    expect(holdsExactly(0.1, '0.1000000000000000000001')).toBe(false);
    expect(holdsExactly(19.990000000000002, '19.990000000000001')).toBe(false);
  });
});

describe('guids', () => {
  it('are 32 lowercase hex; secrets too', () => {
    expect(newGuid()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSecretId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newGuid()).not.toBe(newGuid());
  });

  it('normalize from hyphenated or upper case, and refuse anything else', () => {
    const guid = newGuid();
    expect(normalizeGuid(hyphenateGuid(guid).toUpperCase())).toBe(guid);
    expect(normalizeGuid(guid)).toBe(guid);
    for (const bad of [
      '',
      'x'.repeat(32),
      `${guid}0`,
      `{${hyphenateGuid(guid)}}`,
      `${guid.slice(0, 8)}-${guid.slice(8)}`,
    ])
      expect(normalizeGuid(bad)).toBeUndefined();
  });
});
