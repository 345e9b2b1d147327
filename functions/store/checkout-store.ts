/**
 * The one place that reads and writes checkout snapshots: what the checkout site must charge for, bound
 * to the basket version it was taken from. The CheckoutId is the key and is unguessable.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { ttlSeconds } from './table.ts';
import type { BasketLine } from '../domain/basket.ts';

export interface Checkout {
  checkoutId: string;
  userId: string;
  basketGuid: string;
  /** The basket version the snapshot was taken from; completion is refused if the basket moved on. */
  basketVersion: number;
  lines: BasketLine[];
  totalMinor: number;
  createdAt: number;
  expiresAt: number;
}

const checkoutKey = (checkoutId: string) => ({ PK: `CHECKOUT#${checkoutId}`, SK: 'CHECKOUT' });

export async function insertCheckout(checkout: Checkout): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...checkoutKey(checkout.checkoutId), Type: 'Checkout', TtlEpochSeconds: ttlSeconds(checkout.expiresAt), ...checkout },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export async function getCheckout(checkoutId: string, now: number): Promise<Checkout | undefined> {
  const result = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: checkoutKey(checkoutId), ConsistentRead: true }));
  if (!result.Item) return undefined;
  const { PK: _pk, SK: _sk, Type: _type, TtlEpochSeconds: _ttl, ...checkout } = result.Item;
  return (checkout as Checkout).expiresAt <= now ? undefined : (checkout as Checkout);
}
