/**
 * The one place that reads and writes image bytes in the bucket: library objects under
 * `library/<anonymousUserId>/<itemGuid>` (one prefix per request, so the sweeper lists what a request left),
 * large-file uploads staged under `uploads/<itemGuid>` until they are verified, and originals held for the
 * lab under `held/` (domain/renditions.ts heldObjectKey).
 */
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
} from '@aws-sdk/client-s3';
import { createPresignedPost, type PresignedPost } from '@aws-sdk/s3-presigned-post';
import { s3 } from '../shared/clients/s3.ts';
import { config } from '../shared/config.ts';
import { uploadStream, type SinglePutResult } from './s3-stream-upload.ts';
import { presignDownloads as signDownloads, type Download } from './download-signer.ts';

/** Every object of one request under one prefix: the sweeper finds them by listing it. */
const libraryObjectPrefix = (anonymousUserId: string) => `library/${anonymousUserId}/`;
export const libraryObjectKey = (anonymousUserId: string, itemGuid: string) =>
  `${libraryObjectPrefix(anonymousUserId)}${itemGuid}`;
export const uploadObjectKey = (itemGuid: string) => `uploads/${itemGuid}`;

/**
 * The MD5 of a stored object when S3 reports it: the ETag of an object stored by one PutObject, unencrypted
 * or encrypted with S3-managed keys (SSE-S3, this bucket's setting), is the MD5 of its bytes (S3 API
 * reference, common response headers). With KMS (SSE-KMS, DSSE-KMS) or a multipart upload it is not:
 * undefined, and the caller hashes the bytes itself.
 */
function md5ReportedByS3(stored: SinglePutResult | undefined): string | undefined {
  if (!stored || (stored.serverSideEncryption !== undefined && stored.serverSideEncryption !== 'AES256'))
    return undefined;
  return /^"([0-9a-fA-F]{32})"$/.exec(stored.etag ?? '')?.[1]?.toUpperCase();
}

/**
 * Streams `body` into the bucket: one PutObject for a small image, a multipart upload through a small pool
 * of reused part buffers for a large one, so memory stays constant whatever the size. `contentMd5` gives
 * the body's MD5 once it has been read, if the caller has it (see uploadStream); the object comes into
 * existence only once `mayStore` has settled (see uploadStream). Answers the object's MD5 (32 uppercase
 * hex) when S3 reports it, so a caller need not hash what S3 has hashed already.
 */
export async function putImageObject(
  objectKey: string,
  body: Readable,
  contentType: string,
  options: { contentMd5?: () => string | undefined; mayStore?: () => Promise<void> } = {},
): Promise<string | undefined> {
  const stored = await uploadStream(s3, body, {
    bucket: config.bucketName,
    key: objectKey,
    contentType,
    concurrency: 2,
    ...options,
  });
  return md5ReportedByS3(stored);
}

export async function deleteImageObject(objectKey: string): Promise<void> {
  await s3.send(new DeleteObjectCommand({ Bucket: config.bucketName, Key: objectKey }));
}

/** The item guids of one request's objects: as many as the request stored (LIBRARY_MAX_ITEMS at most). */
export async function listLibraryObjects(anonymousUserId: string): Promise<string[]> {
  const prefix = libraryObjectPrefix(anonymousUserId);
  const itemGuids: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: config.bucketName, Prefix: prefix, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) itemGuids.push((object.Key ?? '').slice(prefix.length));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return itemGuids;
}

export interface OpenedObject {
  body: Readable;
  size: number;
  /** The version being read, for reading more of exactly it (readObjectRanges). */
  etag: string;
  /** The Content-Type S3 keeps for it. */
  contentType: string | undefined;
}

/** The object's bytes as a stream, with its size, version and type; undefined when it does not exist. */
export async function openObject(objectKey: string): Promise<OpenedObject | undefined> {
  try {
    const result = await s3.send(new GetObjectCommand({ Bucket: config.bucketName, Key: objectKey }));
    return {
      body: result.Body as Readable,
      size: result.ContentLength ?? 0,
      etag: result.ETag ?? '',
      contentType: result.ContentType,
    };
  } catch (error) {
    if (error instanceof NoSuchKey) return undefined;
    throw error;
  }
}

/** Ranges read at once by readObjectRanges, and their size: 32 MiB in memory at most. */
const RANGE_BYTES = 8 * 1024 * 1024;
const RANGES_IN_FLIGHT = 4;

/**
 * The object's bytes in order, fetched as ranged GETs of 8 MiB, four at a time, only while it is the
 * version `etag` names. One GET stream from S3 runs at about 80-100 MB/s; four in flight let a 2 GiB file
 * reach the speed of the hash that reads it (a whole-file MD5 cannot be split across parts).
 */
export async function* readObjectRanges(objectKey: string, etag: string, size: number): AsyncGenerator<Buffer> {
  const read = (start: number) =>
    s3
      .send(
        new GetObjectCommand({
          Bucket: config.bucketName,
          Key: objectKey,
          IfMatch: etag,
          Range: `bytes=${start}-${Math.min(size, start + RANGE_BYTES) - 1}`,
        }),
      )
      .then(async (result) => Buffer.from((await result.Body?.transformToByteArray()) ?? []));
  const pending: Promise<Buffer>[] = [];
  let next = 0;
  const fill = () => {
    while (pending.length < RANGES_IN_FLIGHT && next < size) {
      const range = read(next);
      // Awaited in order below; a failure meanwhile is not an unhandled rejection.
      range.catch(() => {});
      pending.push(range);
      next += RANGE_BYTES;
    }
  };
  fill();
  while (pending.length > 0) {
    const bytes = await (pending.shift() as Promise<Buffer>);
    fill();
    yield bytes;
  }
}

/**
 * Server-side copy (no bytes through the function; one CopyObject takes up to 5 GiB, more than
 * MULTIPART_MAX_BYTES allows). With `version`: only of the version its etag names, stored as its
 * `contentType` (the sniffed type) rather than whatever type the uploading browser declared.
 */
export async function copyObject(
  fromKey: string,
  toKey: string,
  version?: { etag: string; contentType: string },
): Promise<void> {
  const bucket = config.bucketName;
  await s3.send(
    new CopyObjectCommand({
      Bucket: bucket,
      Key: toKey,
      CopySource: `${bucket}/${fromKey}`,
      ...(version
        ? { CopySourceIfMatch: version.etag, MetadataDirective: 'REPLACE', ContentType: version.contentType }
        : {}),
    }),
  );
}

/** A browser-style presigned POST whose policy pins the key and limits the size to 1..maxBytes. */
export function presignUpload(objectKey: string, maxBytes: number, expiresSeconds: number): Promise<PresignedPost> {
  return createPresignedPost(s3, {
    Bucket: config.bucketName,
    Key: objectKey,
    Conditions: [['content-length-range', 1, maxBytes]],
    Expires: expiresSeconds,
  });
}

/**
 * Presigned GETs of library objects, valid `expiresSeconds`, each answered with its content type (the
 * sniffed type) and as an attachment (download-signer.ts). Signed in process: no request to S3.
 */
export const presignDownloads = (downloads: readonly Download[], expiresSeconds: number): Promise<string[]> =>
  signDownloads(s3, config.bucketName, downloads, expiresSeconds);
