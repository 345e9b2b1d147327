/**
 * S3 multipart uploads for the local stand-in, as S3 does them, in front of s3rver's own.
 *
 * s3rver 3.7 has CreateMultipartUpload, UploadPart and CompleteMultipartUpload, but not ListParts or
 * AbortMultipartUpload (both answer 405), and its Complete checks nothing: it concatenates whatever part
 * files exist for the upload id, ignores the ETags, the key and the 5 MiB minimum, and a part PUT for an
 * unknown upload id creates it. Resumable uploads depend on exactly those checks (a wrong ETag, a part of
 * another upload, a missing part must be refused; a listing must show what is stored; an abort must remove
 * the parts), so this middleware, placed before s3rver's router, serves all five operations itself:
 *
 * - parts live in a directory of their own (`<dir>/uploads/<uploadId>/`, lib/local/s3-multipart-uploads.ts),
 *   written to a temporary file and renamed, with their MD5 (the ETag S3 gives a part) and size;
 * - ListParts pages (`max-parts`, `part-number-marker`) like S3; AbortMultipartUpload removes the parts;
 * - Complete answers S3's errors (NoSuchUpload here; InvalidPart, InvalidPartOrder, EntityTooSmall in
 *   lib/local/s3-multipart-completion.ts), then makes the parts the object where they lie, without copying
 *   (lib/local/s3-multipart-objects.ts), with S3's multipart ETag: the MD5 of the parts' MD5s and `-<count>`,
 *   which is not the MD5 of the file.
 *
 * CORS: a part PUT from a browser gets the bucket's CORS headers through s3rver's own CORS middleware
 * (preflights are answered by the front, lib/local/s3-preflight.ts), so a page can read the ETag when the
 * bucket's rule exposes it. Signatures and body digests are checked before this runs, by the front
 * (lib/local/s3-front.ts). Only the local stack uses this; the functions speak to it through the same SDK
 * calls as to S3.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { S3Error } from './s3-error.ts';
import { checkedParts, multipartEtag, namedParts } from './s3-multipart-completion.ts';
import { assembledObjects, type FilesystemStore } from './s3-multipart-objects.ts';
import { multipartUploads, type UploadInfo } from './s3-multipart-uploads.ts';
import type { S3Context } from './s3-context.ts';

const require = createRequire(import.meta.url);
// s3rver's own CORS middleware.
const corsMiddleware = require('s3rver/lib/middleware/cors') as () => (
  ctx: Ctx,
  next: () => Promise<void>,
) => Promise<void>;

type Ctx = S3Context;

const quoted = (md5: string) => `"${md5}"`;
const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
/** The largest Complete request read: the XML naming S3's 10,000 parts is about 1.2 MB. */
const MAX_COMPLETION_BYTES = 2 * 1024 * 1024;

/** What a request's headers give the object (as S3 keeps them): its content headers and x-amz-meta-*. */
function metadataOf(headers: Ctx['headers']): Record<string, string> {
  const kept = [
    'cache-control',
    'content-disposition',
    'content-encoding',
    'content-language',
    'content-type',
    'expires',
  ];
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name]) => kept.includes(name) || name.startsWith('x-amz-meta-'))
      .map(([name, value]) => [name, String(single(value))]),
  );
}

/** Puts the multipart operations in front of s3rver's router, keeping uploads and assembled objects under `directory`. */
export function installMultipart(s3rver: { store: unknown; middleware: unknown[] }, directory: string): void {
  const objects = assembledObjects(directory, s3rver.store as FilesystemStore);
  s3rver.middleware.splice(s3rver.middleware.length - 1, 0, multipartMiddleware(join(directory, 'uploads'), objects));
}

function multipartMiddleware(directory: string, objects: ReturnType<typeof assembledObjects>) {
  const cors = corsMiddleware();
  const uploads = multipartUploads(directory);

  async function uploadOf(uploadId: string, bucket: string, key: string): Promise<UploadInfo> {
    const info = await uploads.find(uploadId);
    if (info?.bucket === bucket && info.key === key) return info;
    throw new S3Error(
      'NoSuchUpload',
      'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
    );
  }

  async function create(ctx: Ctx, bucket: string, key: string): Promise<void> {
    if (!(await ctx.store.getBucket(bucket))) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist');
    const uploadId = await uploads.create(bucket, key, metadataOf(ctx.headers));
    ctx.body = { InitiateMultipartUploadResult: { Bucket: bucket, Key: key, UploadId: uploadId } };
  }

  async function uploadPart(ctx: Ctx, bucket: string, key: string, uploadId: string): Promise<void> {
    await uploadOf(uploadId, bucket, key);
    const partNumber = Number(single(ctx.query.partNumber));
    if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000)
      throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive');
    const part = await uploads.putPart(uploadId, partNumber, ctx.req);
    ctx.set('ETag', quoted(part.etag));
    ctx.body = '';
  }

  async function listParts(ctx: Ctx, bucket: string, key: string, uploadId: string): Promise<void> {
    await uploadOf(uploadId, bucket, key);
    const maxParts = Math.min(1000, countArgument(ctx, 'max-parts') ?? 1000);
    const marker = countArgument(ctx, 'part-number-marker') ?? 0;
    const after = (await uploads.parts(uploadId)).filter((part) => part.partNumber > marker);
    const page = after.slice(0, maxParts);
    const truncated = after.length > page.length;
    ctx.body = {
      ListPartsResult: {
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        PartNumberMarker: marker,
        ...(truncated ? { NextPartNumberMarker: page[page.length - 1]?.partNumber } : {}),
        MaxParts: maxParts,
        IsTruncated: truncated,
        Part: page.map((part) => ({
          PartNumber: part.partNumber,
          LastModified: part.lastModified,
          ETag: quoted(part.etag),
          Size: part.size,
        })),
      },
    };
  }

  async function complete(ctx: Ctx, bucket: string, key: string, uploadId: string): Promise<void> {
    const info = await uploadOf(uploadId, bucket, key);
    const xml = await completionBody(ctx);
    const named = namedParts(xml);
    const parts = checkedParts(named, await uploads.parts(uploadId));
    const etag = multipartEtag(parts);
    // The parts become the object where they lie (lib/local/s3-multipart-objects.ts): no bytes copied.
    await objects.assemble(
      bucket,
      key,
      uploads.uploadDir(uploadId),
      parts.map((part) => ({ file: String(part.partNumber), size: part.size })),
      etag,
      info.metadata,
    );
    ctx.body = {
      CompleteMultipartUploadResult: { Location: `/${bucket}/${key}`, Bucket: bucket, Key: key, ETag: quoted(etag) },
    };
  }

  /** A query argument that S3 takes as a whole number from 0 (absent: undefined), else InvalidArgument as S3 answers it. */
  function countArgument(ctx: Ctx, name: string): number | undefined {
    const given = single(ctx.query[name]);
    if (given === undefined) return undefined;
    if (!/^\d{1,10}$/.test(given) || Number(given) > 2_147_483_647)
      throw new S3Error('InvalidArgument', `Argument ${name} must be an integer between 0 and 2147483647`);
    return Number(given);
  }

  /** The Complete request's XML, refused past MAX_COMPLETION_BYTES (as S3 refuses a request body too big for its kind). */
  async function completionBody(ctx: Ctx): Promise<string> {
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > MAX_COMPLETION_BYTES) throw new S3Error('MaxMessageLengthExceeded', 'Your request was too big.');
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  async function abort(ctx: Ctx, bucket: string, key: string, uploadId: string): Promise<void> {
    await uploadOf(uploadId, bucket, key);
    await uploads.remove(uploadId);
    ctx.status = 204;
    ctx.body = '';
  }

  return async function s3Multipart(ctx: Ctx, next: () => Promise<void>): Promise<void> {
    const match = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
    const uploadId = single(ctx.query.uploadId);
    const starts = ctx.method === 'POST' && 'uploads' in ctx.query;
    if (!match || (!starts && uploadId === undefined) || !['GET', 'PUT', 'POST', 'DELETE'].includes(ctx.method))
      return next();
    const bucket = decodeURIComponent(match[1] as string);
    const key = decodeURIComponent(match[2] as string);
    ctx.params = { bucket, key };
    await cors(ctx, async () => {
      if (starts) return create(ctx, bucket, key);
      const id = uploadId as string;
      if (ctx.method === 'PUT') return uploadPart(ctx, bucket, key, id);
      if (ctx.method === 'GET') return listParts(ctx, bucket, key, id);
      if (ctx.method === 'POST') return complete(ctx, bucket, key, id);
      return abort(ctx, bucket, key, id);
    });
  };
}
