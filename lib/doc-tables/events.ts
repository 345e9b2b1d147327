/** docs/design.md: the domain events; docs/api.md: which of them each key scope's webhooks may receive. */
import { DOMAIN_EVENT_TYPES, type DomainEventType } from '../../functions/shared/event-types.ts';
import { EVENT_SUBSCRIPTIONS, WEBHOOK_EVENT_TYPES } from '../../functions/webhooks/event-subscriptions.ts';
import { formRows, PARTNER_FORMS } from '../../functions/webhooks/partner-forms.ts';
import { table } from './markdown.ts';

const EVENT_DOCS: Record<DomainEventType, { when: string; id: string }> = {
  BasketCheckedOut: {
    when: 'a checkout URL was issued (`POST /basket/<guid>/checkout`)',
    id: '`BasketCheckedOut-<random guid>` (the CheckoutId is a secret and is not in events)',
  },
  OrderCreated: { when: 'a checkout was completed into an order', id: '`OrderCreated-<OrderGuid>`' },
  OrderStatusChanged: {
    when: "an order's status changed",
    id: '`OrderStatusChanged-<OrderGuid>-<Revision>` (revision 2 is the first change)',
  },
  OrderCancelled: {
    when: "an order was cancelled, by its customer (`POST /order/<guid>/cancel`) or the lab; detail `CancelledBy`, `RefundDue` (the order's total), `Currency`, `CancelledDateUtc`, `PaymentReference`. Written in the cancel's own transaction, beside its `OrderStatusChanged`",
    id: '`OrderCancelled-<OrderGuid>` (an order is cancelled once)',
  },
  LibraryItemsAdded: {
    when: "a push, pull, multi push, multi pull or large-file completion committed its items; detail `ApiKeyId`, `AnonymousUserId`, `ItemGuids` (in request order; a consumer such as renditions reads the item records, whose object is `library/<AnonymousUserId>/<ItemGuid>`). Written as an outbox record in the commit's own transaction",
    id: '`LibraryItemsAdded-<AnonymousUserId>` (the same when a completion is repeated, and a repeat writes no second record)',
  },
  LibraryItemRenditionsDecided: {
    when: "the renditions function decided an item's renditions; detail `ApiKeyId`, `ItemGuid`, `Status` (`Ready` or `Failed`), `Reason` (Failed). Written as an outbox record in the decision's own transaction",
    id: '`LibraryItemRenditionsDecided-<ItemGuid>-<decision time in ms>`',
  },
};

export function eventsTable(): string {
  return table(
    ['event', 'when', '`EventId`'],
    DOMAIN_EVENT_TYPES.map((type) => [`\`${type}\``, EVENT_DOCS[type].when, EVENT_DOCS[type].id]),
  );
}

/** Which API key scopes' webhooks may subscribe to each event type, and who of them receives it. */
export function webhookEventsTable(): string {
  return table(
    ['event type', 'what it says', 'key scopes that may subscribe', 'delivered to'],
    WEBHOOK_EVENT_TYPES.map((type) => {
      const { scopes, audience, summary } = EVENT_SUBSCRIPTIONS[type];
      return [
        `\`${type}\``,
        summary,
        scopes.map((scope) => `\`${scope}\``).join(', '),
        audience === 'owner'
          ? "the webhooks of the key that caused it (the event's `ApiKeyId`)"
          : 'every subscribed webhook of those scopes',
      ];
    }),
  );
}

/** The partner forms: which fields of each event a webhook's `data` carries, by its key's scope, and where that scope reads them. */
export function partnerFormsTable(): string {
  return table(
    ['event type', '`data` field', 'sent to the webhooks of', 'what it is; where those keys read it'],
    WEBHOOK_EVENT_TYPES.flatMap((type) =>
      formRows(PARTNER_FORMS[type]).map(([path, field]) => [
        `\`${type}\``,
        `\`${path}\``,
        field.scopes.map((scope) => `\`${scope}\``).join(', '),
        field.about,
      ]),
    ),
  );
}
