import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromMinorUnits, toMinorUnits } from '../../functions/shared/money.ts';
import { hyphenateGuid, newGuid, newSecretId, normalizeGuid } from '../../functions/shared/ids.ts';

describe('money', () => {
  it('converts two-digit amounts exactly and refuses finer ones', () => {
    expect(toMinorUnits(19.99)).toBe(1999);
    expect(toMinorUnits(0.1 + 0.2)).toBe(30);
    expect(toMinorUnits(12)).toBe(1200);
    expect(toMinorUnits(1.005)).toBeUndefined();
    expect(toMinorUnits(Number.NaN)).toBeUndefined();
    expect(toMinorUnits(Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('round-trips every cent amount up to a billion', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 100_000_000_000 }), (minor) => toMinorUnits(fromMinorUnits(minor)) === minor));
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
    for (const bad of ['', 'x'.repeat(32), `${guid}0`, `{${hyphenateGuid(guid)}}`, `${guid.slice(0, 8)}-${guid.slice(8)}`]) expect(normalizeGuid(bad)).toBeUndefined();
  });
});
