/** Basket request and response schemas (the wire contract) and the mapping from domain objects to it. */
import * as z from 'zod/mini';
import { MAX_QUANTITY, basketTotalMinor, lineTotalMinor, type Basket, type BasketLine } from '../domain/basket.ts';
import { formatDate } from '../shared/dates.ts';
import { fromMinorUnits } from '../shared/money.ts';
import { DEFAULT_PAGE_LIMIT, Guid, GuidOut, IntegerOut, MoneyOut, nameSchemas, NextCursorOut } from './common.ts';
import { PageQuery, PathInteger, requestSchemas, responseSchemas, WireDateOut } from './common.ts';

export const BasketPath = z.object({ basketGuid: Guid });
export const BasketLinePath = z.object({ basketGuid: Guid, lineId: PathInteger });

export const LineInput = z.object({
  ProjectGuid: Guid,
  Quantity: z
    .number()
    .check(
      z.int(`must be a whole number from 1 to ${MAX_QUANTITY}`),
      z.minimum(1, `must be from 1 to ${MAX_QUANTITY}`),
      z.maximum(MAX_QUANTITY, `must be from 1 to ${MAX_QUANTITY}`),
      z.meta({ example: 2 }),
    ),
});
export type LineInput = z.output<typeof LineInput>;

export const BasketLineOut = z.object({
  Id: IntegerOut({
    minimum: 1,
    example: 1,
    description: "The line's number in its basket (the `lineId` of its paths): 1 for the first line, never reused",
  }),
  ProjectGuid: GuidOut,
  Quantity: IntegerOut({ minimum: 1, maximum: MAX_QUANTITY, example: 2 }),
  Total: MoneyOut,
});

export const BasketOut = z.object({
  Guid: GuidOut,
  Lines: z.array(BasketLineOut),
  OrderTotal: MoneyOut,
  CreatedDateUtc: WireDateOut,
  LastSavedDateUtc: WireDateOut,
});

export const BasketListQuery = z.object(PageQuery(DEFAULT_PAGE_LIMIT));
export const BasketListOut = z.object({ Baskets: z.array(BasketOut), NextCursor: NextCursorOut });
export const LineResultOut = z.object({ Line: BasketLineOut, Basket: BasketOut });
export const BasketResultOut = z.object({ Basket: BasketOut });
export const CheckoutUrlOut = z.object({ BasketGuid: GuidOut, CheckoutUrl: z.url() });

export const toBasketLineOut = (line: BasketLine): z.infer<typeof BasketLineOut> => ({
  Id: line.id,
  ProjectGuid: line.projectGuid,
  Quantity: line.quantity,
  Total: fromMinorUnits(lineTotalMinor(line)),
});

export const toBasketOut = (basket: Basket): z.infer<typeof BasketOut> => ({
  Guid: basket.guid,
  Lines: basket.lines.map(toBasketLineOut),
  OrderTotal: fromMinorUnits(basketTotalMinor(basket)),
  CreatedDateUtc: formatDate(basket.createdAt),
  LastSavedDateUtc: formatDate(basket.lastSavedAt),
});

export const DeletedBasketOut = z.object({ BasketGuid: GuidOut, Deleted: z.literal(true) });

/** Route contracts: what each basket handler validates and answers. The OpenAPI document is built from these. */
export const basketContracts = {
  create: { principal: 'user', idempotent: true, response: BasketOut, errors: { 409: ['BasketQuotaExceeded'] } },
  list: { principal: 'user', query: BasketListQuery, response: BasketListOut },
  get: { principal: 'user', path: BasketPath, response: BasketOut, errors: { 404: ['BasketNotFound'] } },
  delete: { principal: 'user', path: BasketPath, response: DeletedBasketOut, errors: { 404: ['BasketNotFound'] } },
  addLine: {
    principal: 'user',
    path: BasketPath,
    body: LineInput,
    idempotent: true,
    response: LineResultOut,
    errors: { 400: ['UnknownProject'], 404: ['BasketNotFound'], 409: ['QuantityLimitExceeded', 'BasketFull'] },
  },
  updateLine: {
    principal: 'user',
    path: BasketLinePath,
    body: LineInput,
    response: LineResultOut,
    errors: { 400: ['UnknownProject'], 404: ['BasketNotFound', 'LineNotFound'], 409: ['QuantityLimitExceeded'] },
  },
  deleteLine: {
    principal: 'user',
    path: BasketLinePath,
    response: BasketResultOut,
    errors: { 404: ['BasketNotFound', 'LineNotFound'] },
  },
  checkout: {
    principal: 'user',
    path: BasketPath,
    idempotent: true,
    response: CheckoutUrlOut,
    errors: { 404: ['BasketNotFound'], 409: ['BasketEmpty', 'ArtworkErased', 'ArtworkNotYours', 'ArtworkHoldsFull'] },
  },
} as const;

nameSchemas(requestSchemas, { LineInput });
nameSchemas(responseSchemas, {
  Basket: BasketOut,
  BasketLine: BasketLineOut,
  BasketList: BasketListOut,
  LineResult: LineResultOut,
  BasketResult: BasketResultOut,
  CheckoutUrl: CheckoutUrlOut,
  DeletedBasket: DeletedBasketOut,
});
