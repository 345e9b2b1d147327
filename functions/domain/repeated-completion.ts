/**
 * A completion of a checkout that already has its order (its claim). The same payment reference is the
 * checkout site retrying: it gets the same order. Another reference means a second payment was taken for a
 * checkout that was already paid: it must not pass as a success (a refund is due), so it is refused, naming
 * the order the first payment made.
 */
import type { CheckoutClaim } from './checkout.ts';

export type RepeatedCompletion =
  { kind: 'SameOrder' } | { kind: 'OtherPayment'; orderGuid: string; firstPaymentReference: string };

export function repeatedCompletion(claim: CheckoutClaim, paymentReference: string): RepeatedCompletion {
  return claim.paymentReference === paymentReference
    ? { kind: 'SameOrder' }
    : { kind: 'OtherPayment', orderGuid: claim.orderGuid, firstPaymentReference: claim.paymentReference };
}
