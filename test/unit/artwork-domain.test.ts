/** The artwork rules without storage: pages of an order's artwork, the verdict on a hold, when a hold ends. */
import { describe, expect, it } from 'vitest';
import { ARTWORK_PAGE_ITEMS, artworkDigest, artworkPage } from '../../functions/domain/artwork.ts';
import {
  HOLD_PENDING_MS,
  holdEndFor,
  holdMarkOf,
  holdMarkText,
  holdVerdict,
  unpaidHoldEnd,
} from '../../functions/domain/artwork-hold.ts';

const lines = (...counts: number[]) => counts.map((artworkItemCount, id) => ({ id: id + 1, artworkItemCount }));

describe('artworkPage', () => {
  it('holds whole lines up to ARTWORK_PAGE_ITEMS items, at least one line, and says where the next starts', () => {
    expect(ARTWORK_PAGE_ITEMS).toBe(1000);
    const order = lines(...Array.from({ length: 94 }, () => 200));
    const first = artworkPage(order, 0);
    expect(first.lines).toHaveLength(5);
    expect(first.next).toBe(5);
    let pages = 0;
    for (let start: number | undefined = 0; start !== undefined; start = artworkPage(order, start).next) pages++;
    expect(pages).toBe(19);
  });

  it('counts lines without artwork as none, and ends without a next page', () => {
    const order: { id: number; artworkItemCount?: number }[] = [{ id: 1 }, ...lines(0, 3)];
    expect(artworkPage(order, 0)).toEqual({ lines: order });
  });
});

describe('artworkDigest', () => {
  it('names the same guids in the same order alike, another order otherwise', () => {
    expect(artworkDigest(['a', 'b'])).toBe(artworkDigest(['a', 'b']));
    expect(artworkDigest(['a', 'b'])).not.toBe(artworkDigest(['b', 'a']));
    expect(artworkDigest(['a'])).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('holdVerdict', () => {
  const now = 1_800_000_000_000;
  const mark = { takenAt: now - 1000, checkoutId: 'c'.repeat(32) };
  /** CHECKOUT_HOLD_HOURS' default. */
  const HOLD = 24 * 60 * 60 * 1000;

  it('reads a mark back from its text', () => {
    expect(holdMarkOf(holdMarkText(mark))).toEqual(mark);
  });

  it('keeps an item for an unpaid checkout until it expires or its hold hours pass (then closes it), and for a paid one until its hold ends', () => {
    expect(holdVerdict(mark, { expiresAt: now + 1 }, now, HOLD)).toBe('live');
    expect(holdVerdict(mark, { expiresAt: now }, now, HOLD)).toBe('close');
    expect(holdVerdict(mark, { expiresAt: now - HOLD_PENDING_MS }, now, HOLD)).toBe('dead');
    expect(holdVerdict(mark, { expiresAt: now + HOLD, createdAt: now - HOLD + 1 }, now, HOLD)).toBe('live');
    expect(holdVerdict(mark, { expiresAt: now + HOLD, createdAt: now - HOLD }, now, HOLD)).toBe('close');
    expect(holdVerdict(mark, { expiresAt: now - 1, order: {} }, now, HOLD)).toBe('live');
    expect(holdVerdict(mark, { expiresAt: now - 1, order: {}, heldUntil: now + 1 }, now, HOLD)).toBe('live');
    expect(holdVerdict(mark, { expiresAt: now - 1, order: {}, heldUntil: now }, now, HOLD)).toBe('dead');
  });

  it("ends an unpaid checkout's hold at the earlier of its expiry and its hold hours (from its mark without createdAt)", () => {
    expect(unpaidHoldEnd({ expiresAt: now + 60 * HOLD, createdAt: now }, mark, HOLD)).toBe(now + HOLD);
    expect(unpaidHoldEnd({ expiresAt: now + 1 }, mark, HOLD)).toBe(now + 1);
    expect(unpaidHoldEnd({ expiresAt: now + 60 * HOLD }, mark, HOLD)).toBe(mark.takenAt + HOLD);
  });

  it('breaks a pending checkout, tombstones a recent mark without a record, ignores broken and old ones', () => {
    expect(holdVerdict(mark, { expiresAt: now + 1, pending: true }, now, HOLD)).toBe('break');
    expect(holdVerdict(mark, { expiresAt: now + 1, brokenBy: 'x' }, now, HOLD)).toBe('dead');
    expect(holdVerdict(mark, undefined, now, HOLD)).toBe('tombstone');
    expect(holdVerdict({ ...mark, takenAt: now - HOLD_PENDING_MS }, undefined, now, HOLD)).toBe('dead');
  });
});

describe('holdEndFor', () => {
  it('ends at once when Cancelled, ARTWORK_HOLD_DAYS after Completed, not at all otherwise', () => {
    expect(holdEndFor('Cancelled', 5, 30)).toBe(5);
    expect(holdEndFor('Completed', 5, 30)).toBe(5 + 30 * 24 * 3600 * 1000);
    expect(holdEndFor('Completed', 5, 0)).toBe(5);
    expect(holdEndFor('Shipped', 5, 30)).toBeUndefined();
  });
});
