/**
 * The single table's schema: key attributes, the TTL attribute and the secondary indexes. The CDK data
 * construct and the local stand-in both create the table from this, so they match.
 *
 * Access patterns (one row per request; each reads the key named):
 * | request                          | key                                                      |
 * |----------------------------------|----------------------------------------------------------|
 * | read / change a basket           | GetItem / conditional PutItem  PK=USER#<user> SK=BASKET#<guid> |
 * | list a user's baskets, newest 1st | Query PK=USER#<user>, SK begins_with BASKET#, descending, one page (guid is time-ordered) |
 * | create / delete a basket         | GetItem PK=USER#<user> SK=QUOTA#BASKETS, then TransactWriteItems: the basket + that quota record (+ ConditionChecks of reclaimed baskets) |
 * | price a line                     | BatchGetItem: the basket + PK=PROJECT#<guid> SK=PROJECT   |
 * | reprice at checkout              | BatchGetItem PK=PROJECT#<guid> SK=PROJECT of the basket's projects |
 * | checkout snapshot                | TransactWriteItems (snapshot, OUTBOX#, repriced basket) / GetItem PK=CHECKOUT#<id> SK=CHECKOUT |
 * | API key lookup (authorizer)      | GetItem PK=APIKEY#<sha256> SK=APIKEY                      |
 * | read one order (user)            | GetItem PK=USER#<user> SK=ORDER#<orderGuid> (guid is time-ordered) |
 * | list a user's orders, newest 1st | Query PK=USER#<user>, SK begins_with ORDER#, descending, one page |
 * | orders with a project            | Query PK=USER#<user>#PROJECT#<project>, SK begins_with ORDER#, descending, one page (a full copy per project) |
 * | order owner (status change)      | GetItem PK=ORDER#<orderGuid> SK=ORDER                     |
 * | checkout completion              | TransactWriteItems: claim on CHECKOUT#<id>, basket, order, ORDER#<guid>, copies, quota record, OUTBOX# |
 * | order status change              | TransactWriteItems: the order (revision condition), its copies, OUTBOX# |
 * | API keys by name (CLI)           | Query GSI1 GSI1PK=APIKEYS                                 |
 * | library item (read, builder URLs) | GetItem / BatchGetItem PK=LIBITEM#<itemGuid> SK=LIBITEM (every record is committed) |
 * | push / pull intent               | PutItem PK=INGEST#<anonymous user> SK=INGEST (TTL: its expiry feeds the sweeper) |
 * | push / pull / upload commit      | TransactWriteItems: create the items, PK=BUILDER#<token>, PK=ANONUSER#<id> SK=ANONUSER, PK=OUTBOX#<event id> (and an upload's decision) |
 * | sweep of an expired intent       | GetItem PK=ANONUSER#<id>; if missing, the request's objects are deleted (it has no records) |
 * | builder URL token (builder site) | GetItem PK=BUILDER#<token> SK=BUILDER                     |
 * | mint a builder link              | TransactWriteItems: create PK=BUILDER#<token>, ConditionCheck each PK=LIBITEM#<guid> |
 * | pending large-file upload        | PutItem / conditional UpdateItem / GetItem PK=UPLOAD#<itemGuid> SK=UPLOAD (TTL, feeds the sweeper) |
 * | resumable (multipart) upload    | conditional UpdateItem, GetItem PK=UPLOAD#<itemGuid> SK=MULTIPART (TTL, feeds the sweeper); its start, refusal and abort: TransactWriteItems of it and PK=UPLOAD#APIKEY#<key id> SK=QUOTA#MULTIPART (the key's open uploads, read first by GetItem), its decision in the commit's |
 * | Idempotency-Key record (POSTs)   | conditional PutItem / GetItem PK=IDEMPOTENCY#<sha256> SK=IDEMPOTENCY |
 * | claim a builder link (user)      | conditional UpdateItem PK=BUILDER#<token> (claimedBy); TransactWriteItems of PK=LIBITEM#<guid> (userId); TransactWriteItems of the entries below |
 * | list the user's library (user)   | Query PK=LIBUSER#<user>, SK begins_with ITEM#, descending (entries copy the item; SK ITEM#<createdAt>#<itemGuid>) |
 * | delete a user's item (user)      | GetItem PK=LIBITEM#<guid>; its marks' checkouts: BatchGetItem PK=CHECKOUT#<id>; TransactWriteItems: delete it, its entry, PK=UPLOAD#<guid>; put PK=ERASE#<guid> (TTL, feeds the sweeper; none while a hold defers it) and, deferred by unpaid holds, PK=ERASE#<guid> SK=HOLDEND (TTL at their end) |
 * | list a key's webhooks            | Query PK=WEBHOOK#<key id>, SK begins_with WEBHOOK# (at most 20: the cap)  |
 * | read one webhook                 | GetItem PK=WEBHOOK#<key id> SK=WEBHOOK#<webhookId> (another key's is not in its partition) |
 * | create a webhook                 | TransactWriteItems: the webhook, PK=WEBHOOK#<key id> SK=COUNT (count < 20), PK=WEBHOOKSUB#<type> SK=<webhookId> per type |
 * | update / rotate / delete webhook | GetItem of it, then TransactWriteItems: it (revision condition), its subscription items, the count (delete) |
 * | subscribers of an event (fan-out) | Query PK=WEBHOOKSUB#<type> (one item per enabled webhook subscribed to it) |
 * | a delivery (fan-out, delivery)   | conditional PutItem / GetItem / UpdateItem PK=WHDELIVERY#<webhookId> SK=DELIVERY#<deliveryId> (TTL) |
 * | a webhook's deliveries, newest 1st | GetItem of the webhook (its key's), then Query PK=WHDELIVERY#<webhookId>, SK begins_with DELIVERY#, descending, one page (ids are time-ordered) |
 * | a webhook's failure streak       | UpdateItem PK=WEBHOOK#<key id> SK=WEBHOOK#<webhookId> (failingSince)  |
 * | project artwork (catalog)        | BatchGetItem PK=LIBITEM#<guid> of its items; PutItem PK=PROJECT#<guid> SK=ARTWORK#<digest>; the project's UpdateItem |
 * | an order's artwork (lab)         | GetItem PK=ORDER#<orderGuid> SK=ORDER (lines' artwork references); BatchGetItem PK=PROJECT#<guid> SK=ARTWORK#<digest>; BatchGetItem PK=ERASE#<itemGuid> SK=ERASE (held originals) |
 * | checkout with artwork            | the checkout's TransactWriteItems plus UpdateItem PK=LIBITEM#<guid> (hold mark) per item; past 100 actions several |
 * | a hold ended (sweeper)           | TTL of PK=CHECKOUT#<id> or PK=ERASE#<guid> SK=HOLDEND; BatchGetItem of ARTWORK#, ERASE# and CHECKOUT# records; TransactWriteItems releasing PK=ERASE#<guid> |
 */
import { OUTBOX_TYPE, SWEPT_RECORD_TYPES } from '../contracts/streamed-record-types.ts';
import { currentCorrelationId } from '../shared/correlation.ts';

export const table = {
  partitionKey: 'PK',
  sortKey: 'SK',
  timeToLiveAttribute: 'TtlEpochSeconds',
  /**
   * What the table's stream carries: new outbox records reach the event publisher with their new image,
   * TTL deletions reach the library sweeper with their old image.
   */
  streamViewType: 'NEW_AND_OLD_IMAGES',
  globalSecondaryIndexes: [{ indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' }],
} as const;

/** Key segments are joined with '#'; values that come from outside are escaped so they cannot forge one. */
export const keyPart = (value: string): string => encodeURIComponent(value);

/** DynamoDB TTL wants epoch seconds. */
export const ttlSeconds = (epochMs: number): number => Math.ceil(epochMs / 1000);

/** The primary key of an item. */
export type TableKey = { PK: string; SK: string };

/**
 * The records the table's stream hands to a consumer: a new outbox record to the publisher, an expired intent
 * to the sweeper. That consumer's work is the writing request's, so each keeps the request's correlation id.
 */
const STREAMED_TYPES: ReadonlySet<string> = new Set([OUTBOX_TYPE, ...SWEPT_RECORD_TYPES]);

/**
 * An item of the table: the record's fields under its key, with its type, if it expires the TTL attribute,
 * and if the stream hands it on the correlation id of the work writing it (shared/correlation.ts).
 */
export const toItem = (key: TableKey, type: string, record: object, expiresAt?: number): Record<string, unknown> => {
  const correlationId = STREAMED_TYPES.has(type) ? currentCorrelationId() : undefined;
  return {
    ...key,
    Type: type,
    ...(expiresAt !== undefined ? { TtlEpochSeconds: ttlSeconds(expiresAt) } : {}),
    ...(correlationId !== undefined ? { CorrelationId: correlationId } : {}),
    ...record,
  };
};

/** The correlation id a streamed item (its stream image, unmarshalled) keeps, if any. */
export const correlationIdOf = (item: Record<string, unknown>): string | undefined =>
  typeof item.CorrelationId === 'string' ? item.CorrelationId : undefined;

/** The record an item holds: the item without the table's own attributes (key, type, expiry, correlation, index keys). */
export function fromItem<T>(item: Record<string, unknown>): T {
  const {
    PK: _pk,
    SK: _sk,
    Type: _type,
    TtlEpochSeconds: _ttl,
    CorrelationId: _id,
    GSI1PK: _gsi1pk,
    GSI1SK: _gsi1sk,
    ...record
  } = item;
  return record as T;
}
