import { describe, expect, it } from 'vitest';
import {
  addLine,
  basketTotalMinor,
  changeLine,
  isExpired,
  MAX_LINES,
  newBasket,
  removeLine,
  repriceLines,
  type SaveTime,
} from '../../functions/domain/basket.ts';
import type { ProjectPrice } from '../../functions/domain/project.ts';
import { DomainError } from '../../functions/shared/errors.ts';

const clock: SaveTime = { now: 1_000_000, ttlMs: 60 * 86_400_000 };
const later: SaveTime = { ...clock, now: clock.now + 5_000 };
const book: ProjectPrice = { projectGuid: 'a'.repeat(32), unitPriceMinor: 2999, version: 3 };
const canvas: ProjectPrice = { projectGuid: 'b'.repeat(32), unitPriceMinor: 4950, version: 1 };

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return (error as DomainError).code;
  }
  return undefined;
};

describe('basket rules', () => {
  it('starts empty, with a TTL from its creation', () => {
    const basket = newBasket('g', 'u', clock);
    expect(basket).toMatchObject({
      lines: [],
      nextLineId: 1,
      createdAt: clock.now,
      lastSavedAt: clock.now,
      expiresAt: clock.now + clock.ttlMs,
    });
    expect(basketTotalMinor(basket)).toBe(0);
  });

  it('prices a line at quantity x unit price, and merges a project into its existing line', () => {
    const first = addLine(newBasket('g', 'u', clock), book, 1, later);
    expect(basketTotalMinor(first.basket)).toBe(2999);
    const merged = addLine(first.basket, { ...book, unitPriceMinor: 3099, version: 4 }, 6, later);
    expect(merged.line).toMatchObject({ id: 1, quantity: 7, unitPriceMinor: 3099, projectVersion: 4 });
    expect(basketTotalMinor(merged.basket)).toBe(7 * 3099);
    expect(merged.basket.lastSavedAt).toBe(later.now);
    expect(merged.basket.expiresAt).toBe(later.now + later.ttlMs);
  });

  it('never reuses a line id after a delete', () => {
    let basket = addLine(newBasket('g', 'u', clock), book, 1, clock).basket;
    basket = removeLine(basket, 1, clock);
    const again = addLine(basket, book, 1, clock);
    expect(again.line.id).toBe(2);
  });

  it('refuses more than 999 units, a 101st line, unknown lines and a project change', () => {
    const basket = addLine(newBasket('g', 'u', clock), book, 999, clock).basket;
    expect(codeOf(() => addLine(basket, book, 1, clock))).toBe('QuantityLimitExceeded');
    expect(codeOf(() => changeLine(basket, 1, canvas, 2, clock))).toBe('ValidationFailed');
    expect(codeOf(() => changeLine(basket, 9, book, 2, clock))).toBe('LineNotFound');
    expect(codeOf(() => removeLine(basket, 9, clock))).toBe('LineNotFound');

    let full = newBasket('g', 'u', clock);
    for (let i = 0; i < MAX_LINES; i++)
      full = addLine(full, { ...book, projectGuid: i.toString(16).padStart(32, '0') }, 1, clock).basket;
    expect(codeOf(() => addLine(full, canvas, 1, clock))).toBe('BasketFull');
    // Adding to a line that exists is still fine in a full basket.
    expect(addLine(full, { ...book, projectGuid: '0'.repeat(32) }, 1, clock).line.quantity).toBe(2);
  });

  it('counts a basket as expired from its expiry instant on', () => {
    const basket = newBasket('g', 'u', clock);
    expect(isExpired(basket, basket.expiresAt - 1)).toBe(false);
    expect(isExpired(basket, basket.expiresAt)).toBe(true);
  });

  it('reprices lines whose price or project version moved, and returns the same basket when none did', () => {
    const basket = addLine(addLine(newBasket('g', 'u', clock), book, 2, clock).basket, canvas, 1, clock).basket;
    expect(
      repriceLines(
        basket,
        new Map([
          [book.projectGuid, book],
          [canvas.projectGuid, canvas],
        ]),
        later,
      ),
    ).toBe(basket);
    const samePriceNewVersion = repriceLines(
      basket,
      new Map([
        [book.projectGuid, { ...book, version: 4 }],
        [canvas.projectGuid, canvas],
      ]),
      later,
    );
    expect(samePriceNewVersion.lines[0]).toMatchObject({ unitPriceMinor: 2999, projectVersion: 4 });
    const sameVersionNewPrice = repriceLines(
      basket,
      new Map([
        [book.projectGuid, book],
        [canvas.projectGuid, { ...canvas, unitPriceMinor: 5000 }],
      ]),
      later,
    );
    expect(basketTotalMinor(sameVersionNewPrice)).toBe(2 * 2999 + 5000);
    expect(sameVersionNewPrice).toMatchObject({ lastSavedAt: later.now, version: basket.version });
    expect(codeOf(() => repriceLines(basket, new Map([[book.projectGuid, book]]), later))).toBe('ProjectUnavailable');
  });
});
