/**
 * The one place that reads and writes checkout snapshots (domain/checkout.ts). The CheckoutId is the key
 * and is unguessable. Completion records its claim on the snapshot (`order`: which order it became), in
 * the completion's transaction, so a repeat finds the order from the checkout alone.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { holdsArtwork, isCheckoutReadable, type Checkout, type CheckoutClaim } from '../domain/checkout.ts';
import { checkoutKey } from './keys.ts';
import { fromItem } from './table.ts';
import { create, update, type WriteAction } from './transaction.ts';

/**
 * A checkout that holds artwork has a type of its own: the sweeper is handed its expiry (the end of its
 * hold), as it is handed expired intents, and no other checkout's.
 */
export const CHECKOUT_HOLD_TYPE = 'ArtworkCheckout';

export const createCheckoutAction = (checkout: Checkout): WriteAction =>
  create(
    checkoutKey(checkout.checkoutId),
    holdsArtwork(checkout) ? CHECKOUT_HOLD_TYPE : 'Checkout',
    checkout,
    checkout.expiresAt,
  );

/** Makes a pending checkout payable, unless an erasure broke it meanwhile (domain/artwork-hold.ts). */
export const finishPendingAction = (checkoutId: string): WriteAction =>
  update(checkoutKey(checkoutId), 'REMOVE pending', {
    condition: { if: 'attribute_exists(pending) AND attribute_not_exists(brokenBy)' },
  });

/** The checkout of a snapshot item (e.g. a failed condition's ALL_OLD item). */
export const checkoutOf = (item: Record<string, unknown>): Checkout => fromItem<Checkout>(item);

/** One GetItem: the checkout record as stored, expired, pending and broken ones too. */
export async function getCheckoutRecord(checkoutId: string): Promise<Checkout | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: checkoutKey(checkoutId), ConsistentRead: true }),
  );
  return result.Item ? checkoutOf(result.Item) : undefined;
}

/**
 * One GetItem. An expired checkout reads as missing even before DynamoDB's TTL deletes it, and so does one
 * still pending or broken (never payable).
 */
export async function getCheckout(checkoutId: string, now: number): Promise<Checkout | undefined> {
  const checkout = await getCheckoutRecord(checkoutId);
  return checkout && isCheckoutReadable(checkout, now) ? checkout : undefined;
}

/**
 * Records the claim on the snapshot; its condition fails when the checkout was completed already, or has
 * expired since it was read. A checkout that holds artwork loses its expiry: it is its order's hold from
 * now on, until a status change ends it (store/artwork-hold-store.ts endHoldAction).
 */
export const claimCheckoutAction = (checkout: Checkout, claim: CheckoutClaim): WriteAction =>
  update(
    checkoutKey(checkout.checkoutId),
    `SET #order = :claim${holdsArtwork(checkout) ? ' REMOVE TtlEpochSeconds' : ''}`,
    {
      values: { ':claim': claim },
      condition: {
        if: 'attribute_exists(PK) AND attribute_not_exists(#order) AND attribute_not_exists(brokenBy) AND expiresAt > :now',
        names: { '#order': 'order' },
        values: { ':now': claim.createdAt },
      },
    },
  );
