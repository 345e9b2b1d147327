/** Order and checkout-completion schemas (the wire contract) and the mapping from domain objects to it. */
import * as z from 'zod/mini';
import { lineTotalMinor } from '../domain/basket.ts';
import type { Checkout, CheckoutLine, CheckoutState } from '../domain/checkout.ts';
import { ORDER_STATUSES, type Order, type OrderLine } from '../domain/order.ts';
import { formatDate } from '../shared/dates.ts';
import { fromMinorUnits } from '../shared/money.ts';
import { BasketLineOut, toBasketLineOut } from './basket.ts';
import { ProjectNameOut, ProjectVersionOut } from './project.ts';
import { DEFAULT_PAGE_LIMIT, Guid, GuidOut, MoneyOut, nameSchemas, NextCursorOut } from './common.ts';
import { PageQuery, requestSchemas, responseSchemas, WireDateOut } from './common.ts';

export const OrderStatusSchema = z.enum(ORDER_STATUSES);

export const OrderPath = z.object({ orderGuid: Guid });
export const OrderListQuery = z.object({ projectguid: z.optional(Guid), ...PageQuery(DEFAULT_PAGE_LIMIT) });
export const StatusInput = z.object({ Status: OrderStatusSchema });

/** CheckoutIds are unguessable 128-bit ids in 32 hex. */
export const CheckoutPath = z.object({
  checkoutId: z
    .string()
    .check(
      z.regex(/^[0-9a-fA-F]{32}$/, 'must be a checkout id (32 hexadecimal characters)'),
      z.toLowerCase(),
      z.meta({ description: 'The CheckoutId at the end of the CheckoutUrl: 32 hexadecimal characters' }),
    ),
});
export const CompleteCheckoutInput = z.object({
  PaymentReference: z
    .string()
    .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200, 'must be at most 200 characters')),
});

const DateOrUnset = WireDateOut.check(
  z.meta({
    description:
      'A date as "\\/Date(<ms>)\\/"; not set yet: "\\/Date(-62135596800000+0000)\\/" (.NET DateTime.MinValue)',
  }),
);

/** The name a checked-out line keeps: its project's name when the checkout was taken (a later rename does not reach it). */
const LineNameOut = ProjectNameOut.check(
  z.meta({
    description:
      "The project's name when the basket was checked out (a later rename does not change it); null when the project had none",
  }),
);

/** A line of a checkout snapshot: a basket line's fields and the name it was checked out with. */
export const CheckoutLineOut = z.extend(BasketLineOut, { Name: LineNameOut });
/**
 * An order line as the list responses show it: exactly the interface's four fields (`Id`, `ProjectGuid`,
 * `Quantity`, `Total`); its own schema, so that it has its own name.
 */
export const OrderLineOut = z.extend(BasketLineOut, {});
/** An order line in the single-order response. `SubTotal` is the line before add-ons; with no add-ons it equals `Total`. */
export const OrderLineDetailOut = z.extend(CheckoutLineOut, {
  ProjectVersion: ProjectVersionOut.check(z.meta({ description: 'The project `Version` the line was priced with' })),
  SubTotal: MoneyOut,
  AddOns: z.array(z.never()),
});

/** The fields after `Lines`, in the interface's order. */
const orderFields = {
  OrderTotal: MoneyOut,
  Status: OrderStatusSchema,
  CreatedDateUtc: WireDateOut,
  CompletedDateUtc: DateOrUnset,
  LastSavedDateUtc: WireDateOut,
};
export const OrderOut = z.object({ OrderGuid: GuidOut, Lines: z.array(OrderLineOut), ...orderFields });
export const OrderDetailOut = z.object({ OrderGuid: GuidOut, Lines: z.array(OrderLineDetailOut), ...orderFields });
export const OrderListOut = z.object({ Orders: z.array(OrderOut), NextCursor: NextCursorOut });
export const OrderResultOut = z.object({ Order: OrderDetailOut });

export const CheckoutDetailOut = z.object({
  CheckoutId: z.string().check(z.regex(/^[0-9a-f]{32}$/)),
  BasketGuid: GuidOut,
  Lines: z.array(CheckoutLineOut),
  OrderTotal: MoneyOut,
  Currency: z
    .string()
    .check(
      z.regex(/^[A-Z]{3}$/),
      z.meta({ example: 'EUR', description: 'ISO 4217 code of the currency of every amount (the service has one)' }),
    ),
  Status: z.enum(['Open', 'Completed', 'BasketChanged']).check(
    z.meta({
      description:
        'Open: completion will create the order. Completed: OrderGuid is its order. BasketChanged: completion would be refused (409).',
    }),
  ),
  OrderGuid: z.optional(GuidOut),
  CreatedDateUtc: WireDateOut,
  ExpiresDateUtc: WireDateOut,
});
export const CheckoutOut = z.object({ Checkout: CheckoutDetailOut });

const orderFieldsOf = (order: Order) => ({
  OrderTotal: fromMinorUnits(order.totalMinor),
  Status: order.status,
  CreatedDateUtc: formatDate(order.createdAt),
  CompletedDateUtc: formatDate(order.completedAt),
  LastSavedDateUtc: formatDate(order.lastSavedAt),
});

const toCheckoutLineOut = (line: CheckoutLine): z.infer<typeof CheckoutLineOut> => ({
  ...toBasketLineOut(line),
  Name: line.name ?? null,
});

export const toOrderOut = (order: Order): z.infer<typeof OrderOut> => ({
  OrderGuid: order.orderGuid,
  Lines: order.lines.map(toBasketLineOut),
  ...orderFieldsOf(order),
});

const toOrderLineDetailOut = (line: OrderLine): z.infer<typeof OrderLineDetailOut> => {
  const total = fromMinorUnits(lineTotalMinor(line));
  return { ...toCheckoutLineOut(line), ProjectVersion: line.projectVersion, SubTotal: total, AddOns: [] };
};

export const toOrderDetailOut = (order: Order): z.infer<typeof OrderDetailOut> => ({
  OrderGuid: order.orderGuid,
  Lines: order.lines.map(toOrderLineDetailOut),
  ...orderFieldsOf(order),
});

/** The snapshot as the checkout site reads it; `currency` is the service's one currency (CURRENCY). */
export const toCheckoutOut = (
  checkout: Checkout,
  state: CheckoutState,
  currency: string,
): z.infer<typeof CheckoutOut> => ({
  Checkout: {
    CheckoutId: checkout.checkoutId,
    BasketGuid: checkout.basketGuid,
    Lines: checkout.lines.map(toCheckoutLineOut),
    OrderTotal: fromMinorUnits(checkout.totalMinor),
    Currency: currency,
    Status: state.status,
    ...(state.status === 'Completed' ? { OrderGuid: state.orderGuid } : {}),
    CreatedDateUtc: formatDate(checkout.createdAt),
    ExpiresDateUtc: formatDate(checkout.expiresAt),
  },
});

/** Route contracts: what each order and checkout handler validates and answers. */
export const orderContracts = {
  getCheckout: {
    principal: 'site',
    path: CheckoutPath,
    response: CheckoutOut,
    errors: { 404: ['CheckoutNotFound'] },
  },
  completeCheckout: {
    principal: 'site',
    path: CheckoutPath,
    body: CompleteCheckoutInput,
    response: OrderResultOut,
    errors: {
      404: ['CheckoutNotFound'],
      409: ['BasketChanged', 'ProjectUnavailable', 'CheckoutAlreadyCompleted', 'ArtworkErased'],
    },
  },
  list: { principal: 'user', query: OrderListQuery, response: OrderListOut },
  get: { principal: 'user', path: OrderPath, response: OrderDetailOut, errors: { 404: ['OrderNotFound'] } },
  updateStatus: {
    principal: 'fulfilment',
    path: OrderPath,
    body: StatusInput,
    response: OrderResultOut,
    errors: { 404: ['OrderNotFound'], 409: ['IllegalStatusTransition'] },
  },
  cancel: {
    principal: 'user',
    path: OrderPath,
    idempotent: true,
    response: OrderResultOut,
    errors: { 404: ['OrderNotFound'], 409: ['OrderInProduction'] },
  },
} as const;

nameSchemas(requestSchemas, { CompleteCheckoutInput, StatusInput, OrderStatus: OrderStatusSchema });
nameSchemas(responseSchemas, {
  OrderStatus: OrderStatusSchema,
  Order: OrderOut,
  OrderLine: OrderLineOut,
  CheckoutLine: CheckoutLineOut,
  OrderDetail: OrderDetailOut,
  OrderLineDetail: OrderLineDetailOut,
  OrderList: OrderListOut,
  OrderResult: OrderResultOut,
  Checkout: CheckoutDetailOut,
  CheckoutResult: CheckoutOut,
});
