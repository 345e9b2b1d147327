/**
 * Which domain events a webhook may subscribe to, and who receives each: the one table that the code
 * (registration, fan-out), the OpenAPI document and docs/api.md read. The rule behind it: a key's webhooks
 * never carry what the key could not read through the API. Orders are read by `fulfilment` and `site`
 * keys, checkouts by `site` keys; a library key reads only the items it pushed, so its events go to the
 * webhooks of that one key (`audience: 'owner'`: the event's `ApiKeyId`). Which fields of an event each
 * scope is sent is the partner-form table beside this one (partner-forms.ts). Pure data, like the route table.
 */
import type { ApiKeyScope } from '../auth/principal.ts';
import type { DomainEventType } from '../shared/event-types.ts';

export interface EventSubscription {
  /** The API key scopes whose webhooks may subscribe to the type. */
  scopes: readonly ApiKeyScope[];
  /** `scope`: every subscribed webhook of those scopes; `owner`: only those of the key named by the event's ApiKeyId. */
  audience: 'scope' | 'owner';
  /** What the event says, for the documentation. */
  summary: string;
}

// One event type per line: the table reads best as rows.
// prettier-ignore
export const EVENT_SUBSCRIPTIONS = {
  BasketCheckedOut: { scopes: ['site'], audience: 'scope', summary: 'A basket was checked out: a checkout awaits payment.' },
  OrderCreated: { scopes: ['fulfilment', 'site'], audience: 'scope', summary: 'A paid checkout became an order.' },
  OrderStatusChanged: { scopes: ['fulfilment', 'site'], audience: 'scope', summary: "An order moved along its status transitions." },
  OrderCancelled: { scopes: ['fulfilment', 'site'], audience: 'scope', summary: 'An order was cancelled, by its customer or the lab: its payment is due back.' },
  LibraryItemsAdded: { scopes: ['library'], audience: 'owner', summary: 'Images pushed, pulled or uploaded by the key were added to the library.' },
  LibraryItemRenditionsDecided: { scopes: ['library'], audience: 'owner', summary: "An item's renditions are Ready (GET /library/{itemGuid} answers them) or Failed." },
} as const satisfies Record<DomainEventType, EventSubscription>;

export type WebhookEventType = keyof typeof EVENT_SUBSCRIPTIONS;

export const WEBHOOK_EVENT_TYPES = Object.keys(EVENT_SUBSCRIPTIONS) as WebhookEventType[];

export const isWebhookEventType = (value: string): value is WebhookEventType =>
  Object.hasOwn(EVENT_SUBSCRIPTIONS, value);

/** The event types a key of this scope may subscribe to. */
export const subscribableBy = (scope: ApiKeyScope): WebhookEventType[] =>
  WEBHOOK_EVENT_TYPES.filter((type) => (EVENT_SUBSCRIPTIONS[type].scopes as readonly ApiKeyScope[]).includes(scope));

/** A subscribed webhook's owner, as the fan-out reads it from the subscription index. */
export interface EventReceiver {
  ownerKeyId: string;
  ownerScope: ApiKeyScope;
}

/** Whether the receiver's key may be sent the event: its scope subscribes to the type, and for `owner` events it caused it. */
export function receives(
  receiver: EventReceiver,
  event: { type: WebhookEventType; detail: Record<string, unknown> },
): boolean {
  const rule: EventSubscription = EVENT_SUBSCRIPTIONS[event.type];
  if (!rule.scopes.includes(receiver.ownerScope)) return false;
  return rule.audience === 'scope' || receiver.ownerKeyId === event.detail.ApiKeyId;
}
