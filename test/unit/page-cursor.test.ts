import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, type PageRange } from '../../functions/store/query.ts';
import { thrownBy } from '../support/refusals.ts';

const range: PageRange = { partitionKey: 'PK', partitionValue: 'USER#alice', sortKey: 'SK', sortKeyPrefix: 'ORDER#' };

describe('page cursor', () => {
  it('round-trips the last key of a page', () => {
    const cursor = encodeCursor(range, { PK: 'USER#alice', SK: 'ORDER#0190', Total: 5 });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(range, cursor)).toEqual({ PK: 'USER#alice', SK: 'ORDER#0190' });
  });

  it.each([
    ['another user', encodeCursor({ ...range, partitionValue: 'USER#bob' }, { PK: 'USER#bob', SK: 'ORDER#1' })],
    ['another listing', encodeCursor(range, { PK: 'USER#alice', SK: 'BASKET#1' })],
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('{nope').toString('base64url')],
    ['an object', Buffer.from(JSON.stringify({ PK: 'USER#alice', SK: 'ORDER#1' })).toString('base64url')],
    ['a number sort key', Buffer.from(JSON.stringify(['USER#alice', 7])).toString('base64url')],
    ['too long', 'A'.repeat(1025)],
  ])('refuses %s with 400 InvalidCursor', (_case, cursor) => {
    expect(thrownBy(() => decodeCursor(range, cursor))).toMatchObject({ status: 400, code: 'InvalidCursor' });
  });
});
