/**
 * The one place that reads and writes checkout snapshots (domain/checkout.ts). The CheckoutId is the key
 * and is unguessable. Completion records its claim on the snapshot (`order`: which order it became), in
 * the completion's transaction, so a repeat finds the order from the checkout alone.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { isCheckoutExpired, type Checkout, type CheckoutClaim } from '../domain/checkout.ts';
import { checkoutKey } from './keys.ts';
import { fromItem } from './table.ts';
import { create, update, type WriteAction } from './transaction.ts';

export const createCheckoutAction = (checkout: Checkout): WriteAction =>
  create(checkoutKey(checkout.checkoutId), 'Checkout', checkout, checkout.expiresAt);

/** The checkout of a snapshot item (e.g. a failed condition's ALL_OLD item). */
export const checkoutOf = (item: Record<string, unknown>): Checkout => fromItem<Checkout>(item);

/** One GetItem. An expired checkout reads as missing even before DynamoDB's TTL deletes it. */
export async function getCheckout(checkoutId: string, now: number): Promise<Checkout | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: checkoutKey(checkoutId), ConsistentRead: true }),
  );
  const checkout = result.Item ? checkoutOf(result.Item) : undefined;
  return checkout && !isCheckoutExpired(checkout, now) ? checkout : undefined;
}

/** Records the claim on the snapshot; its condition fails when the checkout was completed already. */
export const claimCheckoutAction = (checkoutId: string, claim: CheckoutClaim): WriteAction =>
  update(checkoutKey(checkoutId), 'SET #order = :claim', {
    values: { ':claim': claim },
    condition: { if: 'attribute_exists(PK) AND attribute_not_exists(#order)', names: { '#order': 'order' } },
  });
