/**
 * Route contracts by handler name (the route table's `handler`). The OpenAPI document is built from this
 * and the route table; a test fails when a route has no contract here.
 */
import * as z from 'zod/mini';
import type { Credential } from '../routes.ts';
import { basketContracts } from './basket.ts';
import { projectContracts } from './project.ts';
import { libraryContracts } from './library.ts';
import { libraryPullContracts } from './library-pull.ts';
import { libraryReadContracts } from './library-read.ts';
import { libraryMultipartContracts } from './library-multipart.ts';
import { orderContracts } from './order.ts';
import { artworkContracts } from './artwork.ts';
import { nameSchemas, responseSchemas } from './common.ts';
import { userLibraryContracts } from './user-library.ts';
import { deliveryContracts, webhookContracts } from './webhooks.ts';

export interface RouteContract {
  /** The route's credential (the route table's `credential`; a test keeps them equal). */
  principal?: Exclude<Credential, 'none'>;
  path?: z.ZodMiniType;
  query?: z.ZodMiniType;
  body?: z.ZodMiniType;
  /** Non-JSON request bodies (multipart uploads) are described here instead of `body`. */
  requestContentType?: string;
  response?: z.ZodMiniType;
  /** The success answer is a 307 redirect (`redirectTo`), described here, instead of JSON. */
  redirect?: string;
  /** A second success answer, 202 Accepted (the handler answers it with `withStatus(202, ...)`). */
  accepted?: z.ZodMiniType;
  /** Binary parts of a multipart body, by part name: what each holds, and whether the part repeats (OpenAPI). */
  fileParts?: Readonly<Record<string, { description: string; repeated?: true }>>;
  /** Takes an `Idempotency-Key` header (see functions/http/idempotency.ts). */
  idempotent?: boolean;
  /**
   * Error codes this route answers beyond the ones every route of its kind does (validation, credentials,
   * idempotency, throttling, storage faults: functions/contracts/openapi-errors.ts), by HTTP status.
   */
  errors?: Readonly<Partial<Record<400 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429, readonly string[]>>>;
}

export const HealthOut = z.object({ Status: z.literal('ok') });
/** The OpenAPI document itself (functions/contracts/openapi.ts); described by the OpenAPI specification, not here. */
export const OpenApiDocumentOut = z.looseObject({ openapi: z.string() });
nameSchemas(responseSchemas, { Health: HealthOut, OpenApiDocument: OpenApiDocumentOut });

export const contracts: Record<string, RouteContract> = {
  'get-health': { response: HealthOut },
  'get-openapi': { response: OpenApiDocumentOut },
  'create-basket': basketContracts.create,
  'list-baskets': basketContracts.list,
  'get-basket': basketContracts.get,
  'delete-basket': basketContracts.delete,
  'add-basket-line': basketContracts.addLine,
  'update-basket-line': basketContracts.updateLine,
  'delete-basket-line': basketContracts.deleteLine,
  'checkout-basket': basketContracts.checkout,
  'put-project': projectContracts.put,
  'get-project': projectContracts.get,
  'get-checkout': orderContracts.getCheckout,
  'complete-checkout': orderContracts.completeCheckout,
  'list-orders': orderContracts.list,
  'get-order': orderContracts.get,
  'update-order-status': orderContracts.updateStatus,
  'cancel-order': orderContracts.cancel,
  'get-order-artwork': artworkContracts.get,
  'follow-artwork-link': artworkContracts.followLink,
  'push-library-item': libraryContracts.push,
  'push-library-items': libraryContracts.pushMany,
  'pull-library-item': libraryPullContracts.pull,
  'pull-library-items': libraryPullContracts.pullMany,
  'get-item-builder-url': libraryContracts.itemBuilder,
  'get-items-builder-url': libraryContracts.itemsBuilder,
  'create-library-upload': libraryContracts.createUpload,
  'complete-library-upload': libraryContracts.completeUpload,
  'get-library-item': libraryReadContracts.getItem,
  'get-builder': libraryReadContracts.getBuilder,
  'claim-library-items': userLibraryContracts.claim,
  'list-library': userLibraryContracts.list,
  'delete-library-item': userLibraryContracts.delete,
  'start-multipart-upload': libraryMultipartContracts.start,
  'sign-multipart-parts': libraryMultipartContracts.signParts,
  'get-multipart-upload': libraryMultipartContracts.status,
  'complete-multipart-upload': libraryMultipartContracts.complete,
  'abort-multipart-upload': libraryMultipartContracts.abort,
  'create-webhook': webhookContracts.create,
  'list-webhooks': webhookContracts.list,
  'get-webhook': webhookContracts.get,
  'update-webhook': webhookContracts.update,
  'delete-webhook': webhookContracts.delete,
  'rotate-webhook-secret': webhookContracts.rotateSecret,
  'list-webhook-deliveries': deliveryContracts.list,
  'redeliver-webhook-delivery': deliveryContracts.redeliver,
};
