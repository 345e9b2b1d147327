/**
 * `Idempotency-Key` for the POSTs that create something: the first request with a key runs and its
 * response is stored; a retry with the same key gets that stored response and creates nothing new.
 * Built on Powertools idempotency with its DynamoDB persistence layer on the single table.
 *
 * - Scope: the key is hashed together with the caller (user id and/or API key id) and the route, so two
 *   callers, or two routes, never share a record even when clients pick the same key.
 * - Same key, different request (path, query or body): refused with 422, nothing runs.
 * - Same key while the first request still runs: 409 with Retry-After; the client retries.
 * - A failed request (any error) leaves no record, so its retry runs again.
 * - Records live IDEMPOTENCY_TTL_SECONDS (24 h); afterwards the key is new again. A request that dies
 *   mid-way (Lambda timeout) holds its key only until the function's own deadline.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyPersistenceLayerError,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { config } from './config.ts';
import { ApiError, badRequest } from './errors.ts';
import type { Principal } from '../auth/principal.ts';
import { table } from '../store/table.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/** Visible ASCII, 1..255 characters (a UUID is the usual choice). */
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

/** What Powertools hashes: `key` names the record, `payload` must match on a retry. */
interface IdempotentCall {
  key: string[];
  payload: string;
}

interface StoredResponse {
  body: string;
  replayed?: true;
}

let persistence: Promise<DynamoDBPersistenceLayer> | undefined;

/**
 * Records are `PK=IDEMPOTENCY#<sha256 of caller, route and key>, SK=IDEMPOTENCY`. Powertools puts its
 * static value in the attribute it calls the partition key, so the roles are swapped on purpose: every
 * record gets its own partition instead of all of them sharing one hot partition. Created on first use:
 * the local front imports this module (through http.ts) before the storage endpoints are configured.
 */
function persistenceLayer(): Promise<DynamoDBPersistenceLayer> {
  persistence ??= import('./clients.ts').then(
    ({ dynamoDbClient }) =>
      new DynamoDBPersistenceLayer({
        tableName: config.tableName,
        awsSdkV3Client: dynamoDbClient,
        keyAttr: table.sortKey,
        staticPkValue: 'IDEMPOTENCY',
        sortKeyAttr: table.partitionKey,
        expiryAttr: table.timeToLiveAttribute,
      }),
  );
  return persistence;
}

const idempotencyConfig = new IdempotencyConfig({
  eventKeyJmesPath: 'key',
  payloadValidationJmesPath: 'payload',
  expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
  hashFunction: 'sha256',
  responseHook: (response) => ({ ...(response as unknown as StoredResponse), replayed: true }),
});

/** The client's key, or undefined when the request has none; a malformed key is a 400. */
export function idempotencyKeyOf(headers: Record<string, string | undefined>): string | undefined {
  const key = headers[IDEMPOTENCY_HEADER];
  if (key === undefined) return undefined;
  if (!KEY_FORM.test(key)) throw badRequest('InvalidIdempotencyKey', 'Idempotency-Key: 1 to 255 visible ASCII characters.');
  return key;
}

/**
 * A digest of what the request asks for. A multipart body is compared without its boundary, which
 * clients pick at random per attempt, so a resent form still matches.
 */
function requestDigest(event: APIGatewayProxyEvent, headers: Record<string, string | undefined>): string {
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  const raw = event.body === null || event.body === undefined ? '' : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8').toString('latin1');
  const body = boundary ? raw.replaceAll(boundary, '') : raw;
  return createHash('sha256')
    .update(JSON.stringify([event.pathParameters ?? {}, event.queryStringParameters ?? {}]))
    .update('\n')
    .update(body, 'latin1')
    .digest('base64');
}

/**
 * Runs `produce` (which answers the response body text) at most once per caller, route and key within
 * the expiry, and answers the stored body to every retry.
 */
export async function runIdempotent(
  key: string,
  request: { principal: Principal; event: APIGatewayProxyEvent; headers: Record<string, string | undefined>; context: Context },
  produce: () => Promise<string>,
): Promise<StoredResponse> {
  const { principal, event, headers, context } = request;
  const call: IdempotentCall = {
    key: [`user:${principal.userId ?? ''}`, `apikey:${principal.apiKey?.id ?? ''}`, `${event.httpMethod} ${event.resource}`, key],
    payload: requestDigest(event, headers),
  };
  const once = makeIdempotent(async (_call: IdempotentCall, _context: Context): Promise<StoredResponse> => ({ body: await produce() }), {
    persistenceStore: await persistenceLayer(),
    config: idempotencyConfig,
    keyPrefix: 'IDEMPOTENCY',
  });
  try {
    return await once(call, context);
  } catch (error) {
    if (error instanceof IdempotencyValidationError) {
      throw new ApiError(422, 'IdempotencyKeyReused', 'This Idempotency-Key was used with a different request; use a new key for a new request.');
    }
    if (error instanceof IdempotencyAlreadyInProgressError) {
      throw new ApiError(409, 'IdempotencyKeyInUse', 'A request with this Idempotency-Key is still running; retry shortly.', {
        details: { Retryable: true },
        headers: { 'Retry-After': '1' },
      });
    }
    // The store's own failure (throttling, timeout): surface the cause so it maps to a retryable answer.
    if (error instanceof IdempotencyPersistenceLayerError && error.cause !== undefined) throw error.cause;
    throw error;
  }
}
