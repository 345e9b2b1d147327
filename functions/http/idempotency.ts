/**
 * `Idempotency-Key` for the POSTs that create something: the first request with a key runs and its
 * response is stored; a retry with the same key gets that stored response and creates nothing new.
 * Handlers whose contract says `idempotent: true` are built with `idempotentEndpoint` instead of
 * `endpoint`, so no other handler carries this code. Records: functions/store/idempotency-store.ts.
 *
 * - Scope: the key is hashed together with the caller (user id and/or API key id) and the route, so two
 *   callers, or two routes, never share a record even when clients pick the same key.
 * - Same key, different request (path, query or body): refused with 422, nothing runs. A resent form may
 *   carry a new multipart boundary and still match (functions/http/request-digest.ts).
 * - Same key while the first request still runs: 409 with Retry-After; the client retries.
 * - A failed request (any error) leaves no record, so its retry runs again.
 * - Records live IDEMPOTENCY_TTL_SECONDS (24 h); afterwards the key is new again. A request that dies
 *   mid-way (Lambda timeout) holds its key only until the function's own deadline.
 *
 * Why not Powertools idempotency (used before): with the JMESPath engine it needs it added 38 KiB to
 * every idempotent handler's bundle, more than the cold-start budget leaves for everything the service
 * adds to the SDK (BENCHMARKS.md, figure 3); these semantics need one conditional PutItem.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { badRequest, DomainError, unprocessable } from '../shared/errors.ts';
import { logger } from '../shared/powertools.ts';
import { endpoint, type Respond } from './endpoint.ts';
import { JSON_CONTENT_TYPE } from './json.ts';
import { claimKey, completeKey, releaseKey } from '../store/idempotency-store.ts';
import { requestDigest } from './request-digest.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/** Visible ASCII, 1..255 characters (a UUID is the usual choice). */
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

/** The client's key, or undefined when the request has none; a malformed key is a 400. */
export function idempotencyKeyOf(headers: Record<string, string | undefined>): string | undefined {
  const key = headers[IDEMPOTENCY_HEADER];
  if (key === undefined) return undefined;
  if (!KEY_FORM.test(key))
    throw badRequest('InvalidIdempotencyKey', 'Idempotency-Key: 1 to 255 visible ASCII characters.');
  return key;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const keyReused = () =>
  unprocessable(
    'IdempotencyKeyReused',
    'This Idempotency-Key was used with a different request; use a new key for a new request.',
  );
const keyInUse = () =>
  new DomainError(
    'Conflict',
    'IdempotencyKeyInUse',
    'A request with this Idempotency-Key is still running; retry shortly.',
    { retryAfterSeconds: 1 },
  );

/** Runs `answer` at most once per caller, route and key within the expiry; retries get the stored body. */
const answerOnce: Respond = async ({ principal, headers, event }, context, answer) => {
  const key = idempotencyKeyOf(headers);
  if (key === undefined) return answer();
  const digest = sha256(
    JSON.stringify([
      `user:${principal.userId ?? ''}`,
      `apikey:${principal.apiKey?.id ?? ''}`,
      `${event.httpMethod} ${event.resource}`,
      key,
    ]),
  );
  const payloadHash = requestDigest(event, headers['content-type']);
  const now = Date.now();
  const runsUntil = now + context.getRemainingTimeInMillis();
  const expiresAt = () => Date.now() + IDEMPOTENCY_TTL_SECONDS * 1000;

  const holder = await claimKey(digest, { payloadHash, now, runsUntil, expiresAt: expiresAt() });
  if (holder) {
    if (holder.payloadHash !== payloadHash) throw keyReused();
    if (holder.status === 'InProgress') throw keyInUse();
    return {
      statusCode: 200,
      headers: { 'Content-Type': JSON_CONTENT_TYPE, 'Idempotent-Replayed': 'true' },
      body: holder.responseBody,
    };
  }
  let response: APIGatewayProxyResult;
  try {
    response = await answer();
  } catch (error) {
    // The request's own error is the answer; a key left claimed frees itself at the deadline.
    await releaseKey(digest, runsUntil).catch((release: unknown) =>
      logger.warn('could not release an Idempotency-Key claim', { reason: String(release) }),
    );
    throw error;
  }
  await completeKey(digest, { payloadHash, responseBody: response.body, expiresAt: expiresAt() });
  return response;
};

/** `endpoint` for a contract with `idempotent: true`. */
export const idempotentEndpoint: typeof endpoint = (spec, run) => endpoint(spec, run, answerOnce);
