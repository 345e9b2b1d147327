/**
 * The one place that reads and writes checkout snapshots (domain/checkout.ts). The CheckoutId is the key
 * and is unguessable.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { isCheckoutExpired, type Checkout } from '../domain/checkout.ts';
import { checkoutKey } from './keys.ts';
import { fromItem, toItem } from './table.ts';

export async function insertCheckout(checkout: Checkout): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(checkoutKey(checkout.checkoutId), 'Checkout', checkout, checkout.expiresAt),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

/** One GetItem. An expired checkout reads as missing even before DynamoDB's TTL deletes it. */
export async function getCheckout(checkoutId: string, now: number): Promise<Checkout | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: checkoutKey(checkoutId), ConsistentRead: true }),
  );
  const checkout = result.Item ? fromItem<Checkout>(result.Item) : undefined;
  return checkout && !isCheckoutExpired(checkout, now) ? checkout : undefined;
}
