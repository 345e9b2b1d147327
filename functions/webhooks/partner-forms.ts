/**
 * The partner form of each event type: which fields of the event's detail a webhook body's `data` carries,
 * by the receiving key's scope. The rule of the event-subscription table, a key never hears what it cannot
 * read, holds field by field: a field reaches a scope only when that scope reads it through the API for the
 * same resource (each field names where), and a user's id reaches none. One exception is written down:
 * `PaymentReference` goes to site keys, which gave it at completion and refund with it. Fields the table
 * does not name never leave the service, so a field added to an internal event stays internal until a row
 * here gives it to a scope. The bus events keep their whole detail for internal consumers; the fan-out
 * shapes each delivery's body by its webhook's scope (services/webhook-fanout-service.ts). Pure data:
 * the OpenAPI document's `webhooks` and docs/api.md read it too.
 */
import * as z from 'zod/mini';
import type { ApiKeyScope } from '../auth/principal.ts';
import { GuidOut, IntegerOut, MoneyOut, WireDateOut } from '../contracts/common.ts';
import { ProjectNameOut, ProjectVersionOut } from '../contracts/project.ts';
import { CANCELLED_BY, ORDER_STATUSES } from '../domain/order.ts';
import type { WebhookEventType } from './event-subscriptions.ts';

interface FieldCommon {
  /** The scopes whose webhooks receive it. */
  scopes: readonly ApiKeyScope[];
  /** What it is, and where those scopes read it through the API. */
  about: string;
  /** Absent from some events of its type. */
  optional?: true;
}

/** A field: a value, or a list of objects each shaped by its own fields. */
export type FormField = FieldCommon & ({ schema: z.ZodMiniType } | { items: PartnerForm });
export type PartnerForm = Readonly<Record<string, FormField>>;

const orderScopes = ['fulfilment', 'site'] as const;
const Status = z.enum(ORDER_STATUSES);
const LineCount = IntegerOut({ minimum: 1, example: 2 });

// One field per line: the table reads best as rows.
// prettier-ignore
const orderLine = {
  Id: { scopes: orderScopes, about: "The line's Id: `Order.Lines[].Id`", schema: IntegerOut({ minimum: 1, example: 1 }) },
  ProjectGuid: { scopes: orderScopes, about: '`Order.Lines[].ProjectGuid`', schema: GuidOut },
  Name: { scopes: orderScopes, about: '`Order.Lines[].Name`', schema: ProjectNameOut },
  ProjectVersion: { scopes: orderScopes, about: '`Order.Lines[].ProjectVersion`', schema: ProjectVersionOut },
  Quantity: { scopes: orderScopes, about: '`Order.Lines[].Quantity`', schema: IntegerOut({ minimum: 1, example: 2 }) },
  Total: { scopes: orderScopes, about: '`Order.Lines[].Total`', schema: MoneyOut },
  ArtworkItemCount: { scopes: ['fulfilment'], about: 'How many items the line prints: the `Items` of its line in `GET /order/{orderGuid}/artwork`', schema: IntegerOut({ minimum: 0, example: 3 }) },
} as const satisfies PartnerForm;

/**
 * Where each scope reads what a field restates: `Order` is the order as `PUT /order/{orderGuid}/status`
 * answers it to a fulfilment key and `POST /checkout/{checkoutId}/complete` to a site key; `Checkout` the
 * snapshot `GET /checkout/{checkoutId}` answers a site key.
 */
// prettier-ignore
export const PARTNER_FORMS = {
  BasketCheckedOut: {
    BasketGuid: { scopes: ['site'], about: '`Checkout.BasketGuid`', schema: GuidOut },
    OrderTotal: { scopes: ['site'], about: '`Checkout.OrderTotal`', schema: MoneyOut },
    LineCount: { scopes: ['site'], about: 'How many `Checkout.Lines`', schema: LineCount },
  },
  OrderCreated: {
    OrderGuid: { scopes: orderScopes, about: '`Order.OrderGuid`', schema: GuidOut },
    BasketGuid: { scopes: ['site'], about: '`Checkout.BasketGuid` of the checkout it completed', schema: GuidOut },
    PaymentReference: { scopes: ['site'], about: 'What the site gave `POST /checkout/{checkoutId}/complete` (refunds name it)', schema: z.string() },
    Status: { scopes: orderScopes, about: '`Order.Status` when it was created: `OrderReceived`', schema: Status },
    OrderTotal: { scopes: orderScopes, about: '`Order.OrderTotal`', schema: MoneyOut },
    Lines: { scopes: orderScopes, about: '`Order.Lines`, in order', items: orderLine },
    ArtworkPath: { scopes: ['fulfilment'], about: 'Where the lab reads the artwork: the path of `GET /order/{orderGuid}/artwork`', schema: z.string() },
  },
  OrderStatusChanged: {
    OrderGuid: { scopes: orderScopes, about: '`Order.OrderGuid`', schema: GuidOut },
    From: { scopes: orderScopes, about: '`Order.Status` before the change', schema: Status },
    To: { scopes: orderScopes, about: '`Order.Status` after it', schema: Status },
    Revision: { scopes: orderScopes, about: 'Which change of the order it is (2 the first): receivers order out-of-order deliveries by it', schema: IntegerOut({ minimum: 2, example: 2 }) },
  },
  OrderCancelled: {
    OrderGuid: { scopes: orderScopes, about: '`Order.OrderGuid`', schema: GuidOut },
    CancelledBy: { scopes: orderScopes, about: 'Who cancelled it: `Customer` (`POST /order/{orderGuid}/cancel`) or `Fulfilment` (`PUT /order/{orderGuid}/status`)', schema: z.enum(CANCELLED_BY) },
    RefundDue: { scopes: orderScopes, about: "What is due back: `Order.OrderTotal` (the whole order; no partial refunds)", schema: MoneyOut },
    Currency: { scopes: orderScopes, about: '`Checkout.Currency`: the currency of every price', schema: z.string() },
    CancelledDateUtc: { scopes: orderScopes, about: '`Order.LastSavedDateUtc` of the cancelled order', schema: WireDateOut },
    PaymentReference: { scopes: ['site'], about: 'What the site gave `POST /checkout/{checkoutId}/complete` (the refund names it)', schema: z.string() },
  },
  LibraryItemsAdded: {
    ItemGuids: { scopes: ['library'], about: 'The `ItemGuid`s the push, pull or completion answered (`GET /library/{itemGuid}` reads each), in request order', schema: z.array(GuidOut) },
  },
  LibraryItemRenditionsDecided: {
    ItemGuid: { scopes: ['library'], about: '`LibraryItem.ItemGuid` of `GET /library/{itemGuid}`', schema: GuidOut },
    Status: { scopes: ['library'], about: '`LibraryItem.Renditions.Status`: `Ready` or `Failed`', schema: z.enum(['Ready', 'Failed']) },
    Reason: { scopes: ['library'], about: '`LibraryItem.Renditions.Reason`; when `Failed`', schema: z.string(), optional: true },
  },
} as const satisfies Record<WebhookEventType, PartnerForm>;

/** The fields of `form` a key of `scope` receives, in the table's order (nested lists keep theirs). */
export const fieldsFor = (form: PartnerForm, scope: ApiKeyScope): [string, FormField][] =>
  Object.entries(form).filter(([, field]) => field.scopes.includes(scope));

/** Every field of a form, nested ones as `Lines[].Id`, for the documentation and the tests. */
export const formRows = (form: PartnerForm, prefix = ''): [string, FormField][] =>
  Object.entries(form).flatMap(([name, field]) => [
    [`${prefix}${name}`, field] as [string, FormField],
    ...('items' in field ? formRows(field.items, `${prefix}${name}[].`) : []),
  ]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function shape(form: PartnerForm, scope: ApiKeyScope, detail: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, field] of fieldsFor(form, scope)) {
    const value = detail[name];
    if (value === undefined) continue;
    data[name] =
      'items' in field && Array.isArray(value)
        ? value.map((entry) => (isRecord(entry) ? shape(field.items, scope, entry) : {}))
        : value;
  }
  return data;
}

/** What a webhook of a `scope` key is sent of an event's detail: its partner form, nothing else. */
export const partnerData = (
  type: WebhookEventType,
  scope: ApiKeyScope,
  detail: Record<string, unknown>,
): Record<string, unknown> => shape(PARTNER_FORMS[type], scope, detail);
