/**
 * CORS preflights in the local S3, answered as S3 answers them: from the bucket's CORS rules alone. A
 * preflight is never signed, so whatever its query holds (a presigned part URL's `X-Amz-Credential` and
 * signature included) is not looked at, and it never reaches s3rver, whose authentication would check it.
 *
 * - no `Origin` or no `Access-Control-Request-Method`: 400 BadRequest;
 * - a bucket without CORS rules: 403 AccessForbidden, "CORSResponse: CORS is not enabled for this bucket.";
 * - the first rule that allows the origin, the method and every requested header answers 200 with its
 *   methods, the requested headers, its exposed headers and max age; the origin is `*` for a rule allowing
 *   every origin, else the request's own with credentials allowed;
 * - no such rule: 403 AccessForbidden, "CORSResponse: This CORS request is not allowed. …".
 */
import { s3Error } from './s3-error.ts';
import type { S3Context } from './s3-context.ts';

/** A rule of the bucket's CORS configuration as s3rver parses it (patterns from `*` wildcards). */
interface CorsRule {
  hasWildcardOrigin: boolean;
  allowedOrigins: RegExp[];
  allowedMethods: string[];
  allowedHeaders: RegExp[];
  exposeHeaders: string[];
  maxAgeSeconds?: number | string;
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

const forbidden = (message: string, method: string, key: string | undefined) =>
  s3Error('AccessForbidden', `CORSResponse: ${message}`, { Method: method, ResourceType: key ? 'OBJECT' : 'BUCKET' });

/** Answers the OPTIONS request `ctx` to `bucket` (and `key`, when it names an object) from the bucket's CORS rules. */
export async function answerPreflight(ctx: S3Context, bucket: string, key: string | undefined): Promise<void> {
  const origin = single(ctx.headers.origin);
  const method = single(ctx.headers['access-control-request-method']);
  if (!origin) throw s3Error('BadRequest', 'Insufficient information. Origin request header needed.');
  if (!method) throw s3Error('BadRequest', 'Invalid Access-Control-Request-Method: null');
  const requested = single(ctx.headers['access-control-request-headers']);
  const headers = (requested ?? '')
    .split(',')
    .map((header) => header.trim().toLowerCase())
    .filter((header) => header !== '');
  const config = bucket === '' ? null : await ctx.store.getSubresource(bucket, undefined, 'cors');
  if (!config) throw forbidden('CORS is not enabled for this bucket.', method, key);
  const rule = (config.rules as CorsRule[]).find(
    (candidate) =>
      candidate.allowedOrigins.some((pattern) => pattern.test(origin)) &&
      candidate.allowedMethods.includes(method) &&
      headers.every((header) => candidate.allowedHeaders.some((pattern) => pattern.test(header))),
  );
  if (!rule)
    throw forbidden(
      "This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
      method,
      key,
    );
  ctx.set('Access-Control-Allow-Origin', rule.hasWildcardOrigin ? '*' : origin);
  if (!rule.hasWildcardOrigin) ctx.set('Access-Control-Allow-Credentials', 'true');
  ctx.set('Access-Control-Allow-Methods', rule.allowedMethods.join(', '));
  if (headers.length > 0) ctx.set('Access-Control-Allow-Headers', headers.join(', '));
  if (rule.exposeHeaders.length > 0) ctx.set('Access-Control-Expose-Headers', rule.exposeHeaders.join(', '));
  if (rule.maxAgeSeconds !== undefined) ctx.set('Access-Control-Max-Age', String(rule.maxAgeSeconds));
  ctx.set('Vary', 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method');
  ctx.status = 200;
  ctx.body = '';
}
