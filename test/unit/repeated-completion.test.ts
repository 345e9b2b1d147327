import { describe, expect, it } from 'vitest';
import { repeatedCompletion } from '../../functions/domain/repeated-completion.ts';

const claim = { orderGuid: 'a'.repeat(32), checkoutId: 'b'.repeat(32), paymentReference: 'psp-1', createdAt: 1 };

describe('a completion of a checkout that has its order', () => {
  it('with the same payment reference is the same order', () => {
    expect(repeatedCompletion(claim, 'psp-1')).toEqual({ kind: 'SameOrder' });
  });

  it('with another payment reference (even one differing only in case or spaces) is a second payment', () => {
    for (const other of ['psp-2', 'PSP-1', 'psp-1 '])
      expect(repeatedCompletion(claim, other)).toEqual({
        kind: 'OtherPayment',
        orderGuid: claim.orderGuid,
        firstPaymentReference: 'psp-1',
      });
  });
});
