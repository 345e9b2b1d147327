/**
 * The local S3's front: a Koa middleware ahead of s3rver's router (and of the multipart stand-in) that
 * refuses what S3 refuses before anything is stored, with S3's status, code and XML:
 *
 * - a CORS preflight is answered here from the bucket's CORS rules, as S3 answers it, unsigned and whatever
 *   its query holds (lib/local/s3-preflight.ts);
 * - a request with neither a SigV4 Authorization header nor a presigned query is refused 403 AccessDenied
 *   (the bucket is private);
 * - the signature is verified with the access key's secret (lib/local/s3-signature-v4.ts), and its time:
 *   a presigned URL past its expiry, a header-signed request more than 15 minutes off;
 * - a body with a Content-MD5, an `x-amz-checksum-*`, a hex `x-amz-content-sha256` or an aws-chunked
 *   trailer is hashed as it arrives into a temporary file, and handed on to be stored only if it matches
 *   (lib/local/s3-payload-checks.ts); a body with nothing to check passes as it is;
 * - every POST of the bucket but DeleteObjects (an upload form) is served here, policy and all
 *   (lib/local/s3-post-object.ts), so s3rver's own form parser (dicer) never runs.
 *
 * Every call whose signature verified is reported to the recorder (lib/local/s3-calls.ts), refused or not.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { S3Error } from './s3-error.ts';
import { callsOf, objectArn, type S3Call, type S3CallRecorder, type S3CallVia } from './s3-calls.ts';
import { verifiedBody } from './s3-payload-checks.ts';
import { postObject } from './s3-post-object.ts';
import { answerPreflight } from './s3-preflight.ts';
import { secretOf, verifySignature } from './s3-signature-v4.ts';
import type { S3Context } from './s3-context.ts';

const require = createRequire(import.meta.url);
/** s3rver's CORS middleware: a POST answered here carries the bucket's CORS headers as s3rver's answers do. */
const corsMiddleware = require('s3rver/lib/middleware/cors') as () => (
  ctx: Ctx,
  next: () => Promise<void>,
) => Promise<void>;
/** s3rver's accounts: it looks each access key up again after this front, so a verified key is made known to it. */
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account') as {
  DUMMY_ACCOUNT: { accessKeys: Map<string, string>; createKeyPair(id: string, secret: string): void };
};

type Ctx = S3Context;

export interface S3FrontOptions {
  /** Where bodies wait while they are verified (each removed once stored or refused). */
  incomingDir: string;
  onRequest?: S3CallRecorder | undefined;
}

const decode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The keys a DeleteObjects request names (each is authorized as s3:DeleteObject). */
const deletedKeys = (xml: string) =>
  [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) =>
    (match[1] as string)
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&'),
  );

export function s3Front({ incomingDir, onRequest }: S3FrontOptions) {
  const cors = corsMiddleware();
  const report = (
    accessKeyId: string,
    via: S3CallVia,
    calls: Pick<S3Call, 'action' | 'resource' | 'context'>[],
    refused?: string,
  ) => {
    if (onRequest) for (const call of calls) onRequest({ accessKeyId, via, ...call, ...(refused ? { refused } : {}) });
  };
  const knownToS3rver = (accessKeyId: string) => {
    if (!DUMMY_ACCOUNT.accessKeys.has(accessKeyId)) DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretOf(accessKeyId));
  };

  async function servePost(ctx: Ctx, bucket: string): Promise<void> {
    ctx.params = { bucket };
    if (!ctx.is('multipart/form-data'))
      throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
        Condition: 'Bucket POST must be of the enclosure-type multipart/form-data',
      });
    await cors(ctx, async () => {
      const answer = await postObject(ctx.req, bucket, ctx.store, incomingDir, (policy, refusal) =>
        report(
          policy.accessKeyId,
          'post-policy',
          [{ action: 's3:PutObject', resource: objectArn(bucket, policy.key) }],
          (refusal as { code?: string } | undefined)?.code,
        ),
      );
      ctx.status = answer.status;
      ctx.set('ETag', answer.etag);
      ctx.set('Location', answer.location);
      ctx.body = answer.body;
    });
  }

  return async function s3Verifying(ctx: Ctx, next: () => Promise<void>): Promise<void> {
    const [, bucketPart = '', ...keyParts] = ctx.path.split('/');
    const bucket = decode(bucketPart);
    const key = keyParts.length > 0 && keyParts.join('/') !== '' ? decode(keyParts.join('/')) : undefined;
    // CORS preflights are never signed: answered here from the bucket's rules, whatever their query holds.
    if (ctx.method === 'OPTIONS') return answerPreflight(ctx, bucket, key);
    // Every POST of the bucket but DeleteObjects is an upload form, served here: s3rver's own form parser
    // (busboy 0.3 on dicer, CVE-2022-24434) must never see a request.
    if (ctx.method === 'POST' && bucket !== '' && key === undefined && !('delete' in ctx.query))
      return servePost(ctx, bucket);

    const signature = verifySignature({
      method: ctx.method,
      path: ctx.path,
      querystring: ctx.querystring,
      headers: ctx.headers,
    });
    if (!signature) throw new S3Error('AccessDenied', 'Access Denied');
    const target = {
      method: ctx.method,
      bucket,
      key,
      query: ctx.query,
      copySource: single(ctx.headers['x-amz-copy-source']),
    };
    const calls =
      bucket === ''
        ? [{ action: 's3:ListAllMyBuckets', resource: '*' }]
        : ctx.method === 'POST' && key === undefined && 'delete' in ctx.query
          ? undefined // reported per key once the body is read
          : callsOf(target);
    const refused = (signature.expired as { code?: string } | undefined)?.code;
    if (calls) report(signature.accessKeyId, signature.via, calls, refused);
    if (signature.expired) throw signature.expired;
    knownToS3rver(signature.accessKeyId);

    if (ctx.method !== 'PUT' && ctx.method !== 'POST') return next();
    const spooled = await verifiedBody(ctx.req, {
      headers: ctx.headers,
      query: ctx.query,
      payloadHash: signature.payloadHash,
      presigned: signature.via === 'presigned-url',
      directory: incomingDir,
      always: !calls,
    });
    if (!spooled) return next();
    try {
      if (!calls) {
        const xml = await readFile(spooled.path, 'utf8');
        report(
          signature.accessKeyId,
          signature.via,
          deletedKeys(xml).map((deleted) => ({ action: 's3:DeleteObject', resource: objectArn(bucket, deleted) })),
        );
      }
      // The verified bytes take the request's place for s3rver and the multipart stand-in.
      const body = await spooled.open();
      ctx.req = body as unknown as IncomingMessage;
      try {
        await next();
      } finally {
        body.destroy(); // closes the file whether or not it was read
      }
    } finally {
      await spooled.remove();
    }
  };
}
