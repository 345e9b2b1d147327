/**
 * Schemas shared by several contracts: guids, wire dates, money. Contracts use `zod/mini` (the functional
 * API of the same zod package): a handler's bundle then holds only the validators it uses, about a tenth
 * of the classic API's (see BENCHMARKS.md, cold start).
 */
import * as z from 'zod/mini';
import { normalizeGuid } from '../shared/ids.ts';
import { toMinorUnits } from '../shared/money.ts';

/** A guid in a path or body: 32 hex or 36-char hyphenated, any case; always 32 lowercase hex after parsing. */
export const Guid = z
  .pipe(
    z
      .string()
      .check(z.refine((text) => normalizeGuid(text) !== undefined, 'must be a guid (32 hexadecimal characters)')),
    z.transform((text: string) => normalizeGuid(text) as string),
  )
  .check(
    z.meta({
      description: '32 hexadecimal characters (a 36-character hyphenated GUID is accepted too)',
      example: '3f2b9c0d8e7a4b1c9d0e1f2a3b4c5d6e',
    }),
  );

/** Output form of a guid: 32 lowercase hex. */
export const GuidOut = z
  .string()
  .check(z.regex(/^[0-9a-f]{32}$/), z.meta({ example: '3f2b9c0d8e7a4b1c9d0e1f2a3b4c5d6e' }));

export const WireDateOut = z.string().check(
  z.regex(/^\/Date\(-?\d+(?:[+-]\d{4})?\)\/$/),
  z.meta({
    description: 'Milliseconds since 1970-01-01T00:00:00Z as "\\/Date(<ms>)\\/" (the "/" is escaped in the JSON text)',
    example: '/Date(1763700000000)/',
  }),
);

export const MoneyOut = z.number().check(
  z.minimum(0),
  z.meta({
    description: 'Amount as a JSON number, never negative; the number of fraction digits varies',
    example: 59.98,
  }),
);

/**
 * An integer of an answer with its real range and an example a real answer could hold. Answers are not
 * validated at run time: this is the document's word on them, kept next to the field.
 */
export const IntegerOut = (rule: { minimum: number; maximum?: number; example: number; description?: string }) =>
  z
    .int()
    .check(
      z.minimum(rule.minimum),
      ...(rule.maximum === undefined ? [] : [z.maximum(rule.maximum)]),
      z.meta({ example: rule.example, ...(rule.description === undefined ? {} : { description: rule.description }) }),
    );

/**
 * Request text the service sends on as an HTTP header value (a resumable upload's `ContentType` becomes S3's
 * Content-Type): printable ASCII only. A CR or LF could end the header, and no character beyond ASCII has a
 * form every HTTP stack sends (Node refuses to, and an SDK call failing on it answered 500); refused here,
 * it is a 400 naming the field, before anything is stored.
 */
export const HeaderText = (max: number) =>
  z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(max, `must be at most ${max} characters`),
      z.regex(
        /^[\x20-\x7e]*$/,
        'must be printable ASCII (no control characters such as CR or LF, no emoji): it is sent as an HTTP header',
      ),
    );

/** A request's list of 1 to `max` items (the messages name the `noun`), with an optional description. */
export const listOf = <T extends z.ZodMiniType>(item: T, max: number, noun: string, description?: string) =>
  z
    .array(item)
    .check(
      z.minLength(1, `must name at least one ${noun}`),
      z.maxLength(max, `must name at most ${max} ${noun}s`),
      ...(description !== undefined ? [z.meta({ description })] : []),
    );

/** A positive integer in a path segment such as `line/{lineId}`. */
export const PathInteger = z
  .pipe(z.string().check(z.regex(/^[1-9]\d{0,8}$/, 'must be a positive integer')), z.transform(Number))
  .check(z.meta({ description: "A positive integer (a line's Id)", example: '1' }));

/**
 * Names of the schemas the OpenAPI document lists under `components/schemas` (functions/contracts/openapi.ts),
 * one registry per direction: request schemas are described as they are sent (before parsing), responses as
 * they are answered. Each contract module names its own schemas with `nameSchemas`.
 */
export const requestSchemas = z.registry<{ id: string }>();
export const responseSchemas = z.registry<{ id: string }>();

export function nameSchemas(registry: typeof requestSchemas, schemas: Record<string, z.ZodMiniType>): void {
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
}

/** A money amount in, as minor units (cents) out; more than two fraction digits is refused, not rounded. */
export const MoneyIn = (max: number) =>
  z.pipe(
    z.number().check(
      z.minimum(0, 'must not be negative'),
      z.maximum(max, `must be at most ${max}`),
      z.refine((amount) => toMinorUnits(amount) !== undefined, 'must have at most two fraction digits'),
    ),
    z.transform((amount: number) => toMinorUnits(amount) as number),
  );

/** Items a list answers when the request names no `?limit=` (GET /orders, GET /baskets). */
export const DEFAULT_PAGE_LIMIT = 200;

/**
 * `?limit=&cursor=` of a paginated list. `limit` 1..maxLimit (default `defaultLimit`); `cursor` is the
 * `NextCursor` of the page before, opaque to clients.
 */
export const PageQuery = (defaultLimit: number, maxLimit = 200) => ({
  limit: z
    .optional(
      z.pipe(
        z.string().check(
          z.regex(/^[1-9]\d{0,3}$/, `must be an integer from 1 to ${maxLimit}`),
          z.refine((text) => Number(text) <= maxLimit, `must be an integer from 1 to ${maxLimit}`),
        ),
        z.transform(Number),
      ),
    )
    .check(z.meta({ description: `Items per page, 1 to ${maxLimit} (default ${defaultLimit})` })),
  cursor: z.optional(
    z.string().check(z.minLength(1), z.maxLength(1024), z.meta({ description: 'NextCursor of the previous page' })),
  ),
});

/** `NextCursor` of a paginated answer: present only when more items follow. */
export const NextCursorOut = z.optional(
  z.string().check(z.meta({ description: 'Pass as ?cursor= for the next page; absent on the last page' })),
);
