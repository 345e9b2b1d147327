/**
 * The error body every refusal and failure answers (functions/http/errors.ts, errorResponse; API Gateway's
 * own answers, lib/constructs/api.ts), for the OpenAPI document. Apart from common.ts so that handler
 * bundles, which only write errors, do not carry its schema.
 */
import * as z from 'zod/mini';
import { IntegerOut, nameSchemas, responseSchemas } from './common.ts';

/** One image of a multi-image request that could not be stored (functions/domain/library.ts, failedItemsError). */
export const ItemFailureOut = z.object({
  Index: IntegerOut({ minimum: 0, example: 1, description: '0-based position of the file or URL in the request' }),
  Code: z.string().check(z.meta({ description: "That image's own error code, e.g. UnsupportedMediaType" })),
  Reason: z.string(),
});

/** `Error` of every refused or failed request; the optional fields appear with the codes that set them. */
export const ErrorDetailOut = z.looseObject({
  Code: z.string().check(
    z.meta({
      description: 'Machine-readable reason, stable across releases (e.g. BasketNotFound, ValidationFailed)',
      example: 'BasketNotFound',
    }),
  ),
  Message: z.string().check(z.meta({ description: 'Human-readable explanation; wording may change' })),
  Fields: z.optional(z.array(z.string())).check(
    z.meta({
      description:
        'ValidationFailed and UnknownProject: the request fields at fault, as dotted paths ("Quantity", "Guids.0"); "body", "path" or "query" when the whole part is',
    }),
  ),
  Failures: z.optional(z.array(ItemFailureOut)).check(
    z.meta({
      description:
        'Library pushes and pulls: every image that failed, in request order; none of the request was stored',
    }),
  ),
  OrderGuid: z.optional(z.string().check(z.regex(/^[0-9a-f]{32}$/))).check(
    z.meta({
      description:
        'CheckoutAlreadyCompleted: the order the checkout was completed into, with its first PaymentReference (this payment made none)',
    }),
  ),
  Retryable: z
    .optional(z.literal(true))
    .check(
      z.meta({ description: 'Present when the same request may be sent again unchanged (after Retry-After seconds)' }),
    ),
});

export const ErrorBody = z.object({ Error: ErrorDetailOut });
nameSchemas(responseSchemas, { Error: ErrorBody, ErrorDetail: ErrorDetailOut, ItemFailure: ItemFailureOut });
