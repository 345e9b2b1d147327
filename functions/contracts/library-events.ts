/**
 * The library's domain event: `LibraryItemsAdded`, written as an outbox record in the commit of a push, pull or completed
 * upload (services/ingest-commit.ts) and published from the table's stream, and read by the renditions function from its queue (an SQS message whose body is
 * the EventBridge envelope). The detail names the items; the function reads their records for the rest.
 */
import * as z from 'zod/mini';
import type { DomainEvent } from '../shared/events.ts';

export const ITEMS_ADDED = 'LibraryItemsAdded';

export const ItemsAddedEnvelope = z.object({
  'detail-type': z.literal(ITEMS_ADDED),
  detail: z.object({
    EventId: z.string(),
    CorrelationId: z.optional(z.string()),
    AnonymousUserId: z.string(),
    ItemGuids: z.array(z.string().check(z.regex(/^[0-9a-f]{32}$/))).check(z.minLength(1)),
  }),
});

/** The event of one commit: its id is the commit's own (its anonymous user), the same when a completion is repeated. */
export const itemsAddedEvent = (
  commit: { apiKeyId: string; anonymousUserId: string; createdAt: number },
  itemGuids: string[],
): DomainEvent => ({
  type: ITEMS_ADDED,
  id: `${ITEMS_ADDED}-${commit.anonymousUserId}`,
  time: commit.createdAt,
  detail: { ApiKeyId: commit.apiKeyId, AnonymousUserId: commit.anonymousUserId, ItemGuids: itemGuids },
});

export const RENDITIONS_DECIDED = 'LibraryItemRenditionsDecided';

/**
 * The event the renditions function records in the commit that decides an item's renditions (its outbox
 * record in the same transaction): `Status` Ready or Failed, for the webhooks of the key that added the item.
 * Its id is the decision's own (the item and the moment), so a decision made again after a reset is an event
 * of its own.
 */
export const renditionsDecidedEvent = (
  item: { itemGuid: string; apiKeyId: string },
  state: { status: 'Ready' | 'Failed'; reason?: string },
  decidedAt: number,
): DomainEvent => ({
  type: RENDITIONS_DECIDED,
  id: `${RENDITIONS_DECIDED}-${item.itemGuid}-${decidedAt}`,
  time: decidedAt,
  detail: {
    ApiKeyId: item.apiKeyId,
    ItemGuid: item.itemGuid,
    Status: state.status,
    ...(state.reason !== undefined ? { Reason: state.reason } : {}),
  },
});

/**
 * Where the event goes: an EventBridge rule sends it to the renditions queue, whose consumer is this
 * handler module; after `maxReceiveCount` deliveries a message moves to the dead-letter queue. The CDK stack
 * and the local stack's stand-in (lib/local/event-delivery.ts) both read this.
 */
export const RENDITIONS_SUBSCRIPTION = {
  detailType: ITEMS_ADDED,
  handler: 'make-renditions',
  maxReceiveCount: 3,
} as const;
