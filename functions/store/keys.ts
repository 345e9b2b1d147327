/**
 * Every key of the single table, built in one place (table.ts lists which request reads which key), from
 * the partition-key prefixes that the route table's grants name too. A key holding a value from outside
 * (a user id, a name) escapes it with keyPart, so it cannot forge a segment; guids, hashes and tokens are
 * made by the service and used as they are.
 */
import { keyPart, type TableKey } from './table.ts';

/**
 * Partition-key prefixes of the table's items. IAM's
 * `dynamodb:LeadingKeys` condition holds each function to the prefixes its grants name, so a library
 * function cannot read an API key and a basket function cannot touch a library item. A `USER#` partition
 * holds a user's baskets and orders alike: leading keys cannot tell those apart.
 */
export const KEYS = {
  user: 'USER#',
  project: 'PROJECT#',
  checkout: 'CHECKOUT#',
  order: 'ORDER#',
  apiKey: 'APIKEY#',
  idempotency: 'IDEMPOTENCY#',
  libraryItem: 'LIBITEM#',
  anonymousUser: 'ANONUSER#',
  builder: 'BUILDER#',
  ingest: 'INGEST#',
  upload: 'UPLOAD#',
  libraryUser: 'LIBUSER#',
  erasure: 'ERASE#',
  outbox: 'OUTBOX#',
  webhook: 'WEBHOOK#',
  webhookSubscription: 'WEBHOOKSUB#',
  webhookDelivery: 'WHDELIVERY#',
} as const;

export type KeyPrefix = (typeof KEYS)[keyof typeof KEYS];

/** The signed-in user's partition: baskets, their quota record, orders. */
export const userPk = (userId: string) => `${KEYS.user}${keyPart(userId)}`;

export const basketKey = (userId: string, basketGuid: string): TableKey => ({
  PK: userPk(userId),
  SK: `BASKET#${basketGuid}`,
});
export const BASKET_PREFIX = 'BASKET#';

export const projectKey = (projectGuid: string): TableKey => ({ PK: `${KEYS.project}${projectGuid}`, SK: 'PROJECT' });
/** A project version's artwork, immutable, named by its digest (domain/artwork.ts). */
export const artworkKey = (projectGuid: string, digest: string): TableKey => ({
  PK: `${KEYS.project}${projectGuid}`,
  SK: `ARTWORK#${digest}`,
});

export const checkoutKey = (checkoutId: string): TableKey => ({ PK: `${KEYS.checkout}${checkoutId}`, SK: 'CHECKOUT' });

export const ORDER_PREFIX = 'ORDER#';
const orderSk = (orderGuid: string) => `${ORDER_PREFIX}${orderGuid}`;
/** The partition of a user's order copies that contain one project. */
export const userProjectPk = (userId: string, projectGuid: string) => `${userPk(userId)}#PROJECT#${projectGuid}`;
export const orderKey = (userId: string, orderGuid: string): TableKey => ({
  PK: userPk(userId),
  SK: orderSk(orderGuid),
});
export const orderCopyKey = (userId: string, projectGuid: string, orderGuid: string): TableKey => ({
  PK: userProjectPk(userId, projectGuid),
  SK: orderSk(orderGuid),
});
export const orderOwnerKey = (orderGuid: string): TableKey => ({ PK: `${KEYS.order}${orderGuid}`, SK: 'ORDER' });
/** The user's open baskets (the quota's record). */
export const basketQuotaKey = (userId: string): TableKey => ({ PK: userPk(userId), SK: 'QUOTA#BASKETS' });

export const apiKeyKey = (hash: string): TableKey => ({ PK: `${KEYS.apiKey}${hash}`, SK: 'APIKEY' });
export const apiKeyNameKey = (name: string): TableKey => ({ PK: `APIKEYNAME#${keyPart(name)}`, SK: 'APIKEYNAME' });
/** GSI1 partition holding every API key's name item. */
export const API_KEYS_INDEX_PK = 'APIKEYS';

export const idempotencyKey = (digest: string): TableKey => ({ PK: `${KEYS.idempotency}${digest}`, SK: 'IDEMPOTENCY' });

// The image library: item records, their anonymous owners, builder links, ingest intents, pending uploads.
export const libraryItemKey = (itemGuid: string): TableKey => ({ PK: `${KEYS.libraryItem}${itemGuid}`, SK: 'LIBITEM' });
export const anonymousUserKey = (anonymousUserId: string): TableKey => ({
  PK: `${KEYS.anonymousUser}${anonymousUserId}`,
  SK: 'ANONUSER',
});
export const builderLinkKey = (token: string): TableKey => ({ PK: `${KEYS.builder}${token}`, SK: 'BUILDER' });
export const ingestIntentKey = (anonymousUserId: string): TableKey => ({
  PK: `${KEYS.ingest}${anonymousUserId}`,
  SK: 'INGEST',
});
export const uploadKey = (itemGuid: string): TableKey => ({ PK: `${KEYS.upload}${itemGuid}`, SK: 'UPLOAD' });
/** A resumable upload's record: the same partition prefix (and grants) as a presigned one, its own sort key. */
export const multipartUploadKey = (itemGuid: string): TableKey => ({
  PK: `${KEYS.upload}${itemGuid}`,
  SK: 'MULTIPART',
});
/**
 * An API key's open resumable uploads (the quota's record), in the uploads' partition prefix (and grants):
 * an item guid is 32 hex, so `APIKEY#…` never names an upload.
 */
export const multipartQuotaKey = (apiKeyId: string): TableKey => ({
  PK: `${KEYS.upload}APIKEY#${keyPart(apiKeyId)}`,
  SK: 'QUOTA#MULTIPART',
});
/** An erased item's object, until it is surely deleted (its expiry hands it to the sweeper). */
export const erasureIntentKey = (itemGuid: string): TableKey => ({ PK: `${KEYS.erasure}${itemGuid}`, SK: 'ERASE' });
/** When the unpaid holds a deferred erasure waits for end (its expiry hands the erasure to the sweeper). */
export const erasureHoldEndKey = (itemGuid: string): TableKey => ({ PK: `${KEYS.erasure}${itemGuid}`, SK: 'HOLDEND' });

// The signed-in user's library partition: an entry per item, sorted by upload time.
export const libraryUserPk = (userId: string) => `${KEYS.libraryUser}${keyPart(userId)}`;
export const LIBRARY_ENTRY_PREFIX = 'ITEM#';
export const libraryEntrySortKey = (item: { createdAt: number; itemGuid: string }) =>
  `${LIBRARY_ENTRY_PREFIX}${String(item.createdAt).padStart(13, '0')}#${item.itemGuid}`;
export const libraryEntryKey = (userId: string, sortKey: string): TableKey => ({
  PK: libraryUserPk(userId),
  SK: sortKey,
});

// Webhooks: each API key's webhooks in its own partition (with the key's count of them), and per event type
// an index item per subscribed, enabled webhook, which the fan-out queries.
export const webhookOwnerPk = (apiKeyId: string) => `${KEYS.webhook}${keyPart(apiKeyId)}`;
export const WEBHOOK_PREFIX = 'WEBHOOK#';
export const webhookKey = (apiKeyId: string, webhookId: string): TableKey => ({
  PK: webhookOwnerPk(apiKeyId),
  SK: `${WEBHOOK_PREFIX}${webhookId}`,
});
/** How many webhooks the key has: the create transaction's condition holds it to the cap. */
export const webhookCountKey = (apiKeyId: string): TableKey => ({ PK: webhookOwnerPk(apiKeyId), SK: 'COUNT' });
export const webhookSubscriptionPk = (eventType: string) => `${KEYS.webhookSubscription}${eventType}`;
export const webhookSubscriptionKey = (eventType: string, webhookId: string): TableKey => ({
  PK: webhookSubscriptionPk(eventType),
  SK: webhookId,
});
/**
 * A webhook's deliveries, newest first by their time-ordered id, spread over DELIVERY_SHARDS partitions by
 * the id's hash part (sharded-listing.ts): shard 0 is the unsuffixed partition, the others end `#<n>`.
 */
export const webhookDeliveryPk = (webhookId: string) => `${KEYS.webhookDelivery}${webhookId}`;
export const DELIVERY_PREFIX = 'DELIVERY#';
export const webhookDeliveryKey = (webhookId: string, deliveryId: string): TableKey => ({
  PK: shardPk(webhookDeliveryPk(webhookId), deliveryShardOf(deliveryId)),
  SK: `${DELIVERY_PREFIX}${deliveryId}`,
});
/** A paused webhook's waiting deliveries, oldest first, sharded as its log is. */
export const webhookWaitingPk = (webhookId: string) => `${KEYS.webhookDelivery}${webhookId}#WAITING`;
export const WAITING_PREFIX = 'WAITING#';
export const webhookWaitingKey = (webhookId: string, deliveryId: string): TableKey => ({
  PK: shardPk(webhookWaitingPk(webhookId), deliveryShardOf(deliveryId)),
  SK: `${WAITING_PREFIX}${deliveryId}`,
});

/**
 * Partitions one webhook's deliveries spread over: at 1,000 orders a second a site key's webhook of every order
 * type is sent 5,000 deliveries a second, each written at least twice (made, attempted) at 1 KB or more: 10,000
 * WCU/s, ten times DynamoDB's 1,000 per partition key; 32 keep each near 300 (docs/performance.md, capacity).
 */
export const DELIVERY_SHARDS = 32;
/** The shard of a delivery: from its id's last two hex digits, which come from a hash (deliveryIdFor), so they spread evenly. */
export const deliveryShardOf = (deliveryId: string): number =>
  Number.parseInt(deliveryId.slice(-2), 16) % DELIVERY_SHARDS;
/** The partition of `shard` of a sharded listing: shard 0 keeps the base key. */
export const shardPk = (basePk: string, shard: number): string => (shard === 0 ? basePk : `${basePk}#${shard}`);
