import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  applyStatus,
  orderFromCheckout,
  orderGuidAt,
  orderProjects,
  ORDER_STATUSES,
  STATUS_TRANSITIONS,
  type Order,
  type OrderStatus,
} from '../../functions/domain/order.ts';
import { DomainError } from '../../functions/shared/errors.ts';
import { statusOf } from '../../functions/http/errors.ts';
import { toOrderDetailOut, toOrderOut, OrderDetailOut, OrderOut } from '../../functions/contracts/order.ts';

const T0 = 1763700000000;
const line = (id: number, projectGuid: string, quantity: number, unitPriceMinor: number) => ({
  id,
  projectGuid,
  quantity,
  unitPriceMinor,
  projectVersion: 3,
});
const P1 = 'a'.repeat(32);
const P2 = 'b'.repeat(32);

function newOrder(): Order {
  const snapshot = {
    userId: 'alice',
    basketGuid: 'c'.repeat(32),
    // A line names its project as checked out; one checked out without a name (before names, or none given) has none.
    lines: [{ ...line(1, P1, 2, 2999), name: 'Photo book A4, 24 pages' }, line(2, P2, 1, 4950)],
    totalMinor: 2 * 2999 + 4950,
  };
  return orderFromCheckout(snapshot, {
    orderGuid: orderGuidAt(T0, new Uint8Array(10)),
    paymentReference: 'pay-1',
    createdAt: T0,
  });
}

describe('order guids', () => {
  it('are 32 hex in the UUID version 7 layout', () => {
    const guid = orderGuidAt(T0, new Uint8Array(10).fill(0xff));
    expect(guid).toMatch(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect(Number.parseInt(guid.slice(0, 12), 16)).toBe(T0);
  });

  it('sort as text in creation-time order', () => {
    const random = fc.uint8Array({ minLength: 10, maxLength: 10 });
    const time = fc.integer({ min: 0, max: 2 ** 48 - 1 });
    fc.assert(
      fc.property(
        time,
        time,
        random,
        random,
        (a, b, ra, rb) => a === b || a < b === orderGuidAt(a, ra) < orderGuidAt(b, rb),
      ),
    );
  });

  it('refuses times outside 48 bits and short randomness', () => {
    expect(() => orderGuidAt(-1, new Uint8Array(10))).toThrow(RangeError);
    expect(() => orderGuidAt(2 ** 48, new Uint8Array(10))).toThrow(RangeError);
    expect(() => orderGuidAt(T0, new Uint8Array(9))).toThrow(RangeError);
  });
});

describe('orders from checkouts', () => {
  it('start as OrderReceived at revision 1, priced as paid, with no completion date', () => {
    const order = newOrder();
    expect(order).toMatchObject({
      status: 'OrderReceived',
      revision: 1,
      totalMinor: 10948,
      createdAt: T0,
      lastSavedAt: T0,
      paymentReference: 'pay-1',
    });
    expect(order.completedAt).toBeUndefined();
    expect(orderProjects(order)).toEqual([P1, P2]);
  });
});

describe('status transitions', () => {
  it('follow the table: received, processing, shipped, completed; cancel before shipping', () => {
    const received = newOrder();
    const processing = applyStatus(received, 'Processing', T0 + 1)!;
    expect(processing).toMatchObject({
      status: 'Processing',
      previousStatus: 'OrderReceived',
      revision: 2,
      lastSavedAt: T0 + 1,
    });
    const shipped = applyStatus(processing, 'Shipped', T0 + 2)!;
    const completed = applyStatus(shipped, 'Completed', T0 + 3)!;
    expect(completed).toMatchObject({ status: 'Completed', revision: 4, completedAt: T0 + 3 });
    expect(applyStatus(received, 'Cancelled', T0 + 1)?.status).toBe('Cancelled');
    expect(applyStatus(processing, 'Cancelled', T0 + 2)?.completedAt).toBeUndefined();
  });

  it('answer undefined for the status the order has already', () => {
    for (const status of ORDER_STATUSES) expect(applyStatus({ ...newOrder(), status }, status, T0)).toBeUndefined();
  });

  it('refuse every move the table does not list with a 409', () => {
    for (const from of ORDER_STATUSES) {
      for (const to of ORDER_STATUSES) {
        if (from === to) continue;
        const order = { ...newOrder(), status: from as OrderStatus };
        if (STATUS_TRANSITIONS[from].includes(to)) {
          expect(applyStatus(order, to, T0)?.status).toBe(to);
        } else {
          let error: unknown;
          try {
            applyStatus(order, to, T0);
          } catch (thrown) {
            error = thrown;
          }
          expect(error, `${from} -> ${to}`).toBeInstanceOf(DomainError);
          expect(statusOf(error as DomainError)).toBe(409);
          expect((error as DomainError).code).toBe('IllegalStatusTransition');
        }
      }
    }
  });

  it('leave Completed and Cancelled final', () => {
    expect(STATUS_TRANSITIONS.Completed).toEqual([]);
    expect(STATUS_TRANSITIONS.Cancelled).toEqual([]);
  });
});

describe('order wire form', () => {
  it("lists lines with exactly the interface's Id, ProjectGuid, Quantity and Total; unset completion as the .NET minimum date", () => {
    const out = toOrderOut(newOrder());
    expect(OrderOut.parse(out)).toEqual(out);
    expect(out.Lines).toEqual([
      { Id: 1, ProjectGuid: P1, Quantity: 2, Total: 59.98 },
      { Id: 2, ProjectGuid: P2, Quantity: 1, Total: 49.5 },
    ]);
    expect(out).toMatchObject({
      OrderTotal: 109.48,
      Status: 'OrderReceived',
      CreatedDateUtc: `/Date(${T0})/`,
      LastSavedDateUtc: `/Date(${T0})/`,
      CompletedDateUtc: '/Date(-62135596800000+0000)/',
    });
  });

  it('adds ProjectVersion, SubTotal and AddOns to lines of the single-order form', () => {
    const out = toOrderDetailOut(newOrder());
    expect(OrderDetailOut.parse(out)).toEqual(out);
    expect(out.Lines[1]).toEqual({
      Id: 2,
      ProjectGuid: P2,
      Quantity: 1,
      Total: 49.5,
      Name: null,
      ProjectVersion: 3,
      SubTotal: 49.5,
      AddOns: [],
    });
  });
});
