/** docs/design.md: the domain events. */
import { DOMAIN_EVENT_TYPES, type DomainEventType } from '../../functions/shared/event-types.ts';
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
  LibraryItemsAdded: {
    when: "a push, pull, multi push, multi pull or large-file completion committed its items; detail `ApiKeyId`, `AnonymousUserId`, `ItemGuids` (in request order; a consumer such as renditions reads the item records, whose object is `library/<AnonymousUserId>/<ItemGuid>`). Written as an outbox record in the commit's own transaction",
    id: '`LibraryItemsAdded-<AnonymousUserId>` (the same when a completion is repeated, and a repeat writes no second record)',
  },
};

export function eventsTable(): string {
  return table(
    ['event', 'when', '`EventId`'],
    DOMAIN_EVENT_TYPES.map((type) => [`\`${type}\``, EVENT_DOCS[type].when, EVENT_DOCS[type].id]),
  );
}
