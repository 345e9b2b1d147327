/** Schemas shared by several contracts: guids, wire dates, money. */
import * as z from 'zod';
import { normalizeGuid } from '../shared/ids.ts';
import { toMinorUnits } from '../shared/money.ts';

/** A guid in a path or body: 32 hex or 36-char hyphenated, any case; always 32 lowercase hex after parsing. */
export const Guid = z
  .string()
  .transform((text, ctx) => {
    const guid = normalizeGuid(text);
    if (guid === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be a guid (32 hexadecimal characters)' });
      return z.NEVER;
    }
    return guid;
  })
  .meta({ description: '32 hexadecimal characters (a 36-character hyphenated GUID is accepted too)', example: '3f2b9c0d8e7a4b1c9d0e1f2a3b4c5d6e' });

/** Output form of a guid: 32 lowercase hex. */
export const GuidOut = z.string().regex(/^[0-9a-f]{32}$/).meta({ example: '3f2b9c0d8e7a4b1c9d0e1f2a3b4c5d6e' });

export const WireDateOut = z
  .string()
  .regex(/^\/Date\(-?\d+(?:[+-]\d{4})?\)\/$/)
  .meta({ description: 'Milliseconds since 1970-01-01T00:00:00Z as "\\/Date(<ms>)\\/" (the "/" is escaped in the JSON text)', example: '/Date(1763700000000)/' });

export const MoneyOut = z.number().meta({ description: 'Amount as a JSON number; the number of fraction digits varies', example: 12.5 });

/** A positive integer in a path segment such as `line/{lineId}`. */
export const PathInteger = z
  .string()
  .regex(/^[1-9]\d{0,8}$/, 'must be a positive integer')
  .transform(Number);

export const ErrorBody = z.object({
  Error: z.object({ Code: z.string(), Message: z.string() }).loose(),
});

/** A money amount in, as minor units (cents) out; more than two fraction digits is refused, not rounded. */
export const MoneyIn = (max: number) =>
  z
    .number()
    .min(0, 'must not be negative')
    .max(max, `must be at most ${max}`)
    .transform((amount, ctx) => {
      const minor = toMinorUnits(amount);
      if (minor === undefined) {
        ctx.addIssue({ code: 'custom', message: 'must have at most two fraction digits' });
        return z.NEVER;
      }
      return minor;
    });
