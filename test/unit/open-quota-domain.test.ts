/** The decision of a quota of open things (domain/open-quota.ts), shown on baskets: admit, reclaim lapsed ones, or refuse. */
import { describe, expect, it } from 'vitest';
import { decideCreation, MAX_RECLAIMS } from '../../functions/domain/open-quota.ts';

const NOW = 1_000_000;
const listed = (expiries: number[]) => Object.fromEntries(expiries.map((expiry, index) => [`b${index}`, expiry]));

describe('basket creation under the quota', () => {
  it('admits while fewer baskets than the quota are listed, lapsed or not', () => {
    expect(decideCreation({}, 3, NOW)).toEqual({ admit: true, reclaim: [] });
    expect(decideCreation(listed([NOW + 1, NOW - 1]), 3, NOW)).toEqual({ admit: true, reclaim: [] });
  });

  it('at the quota, reclaims every listed basket whose expiry has passed (the expiry itself included)', () => {
    expect(decideCreation(listed([NOW + 1, NOW, NOW - 5]), 3, NOW)).toEqual({ admit: true, reclaim: ['b1', 'b2'] });
  });

  it('refuses when every listed basket is still open', () => {
    expect(decideCreation(listed([NOW + 1, NOW + 2, NOW + 3]), 3, NOW)).toEqual({ admit: false });
  });

  it('reclaims at most what fits one transaction beside the basket and the record', () => {
    const decision = decideCreation(listed(Array.from({ length: 150 }, () => NOW - 1)), 150, NOW);
    expect(decision.admit && decision.reclaim.length).toBe(MAX_RECLAIMS);
  });
});
