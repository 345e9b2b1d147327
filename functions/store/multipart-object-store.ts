/**
 * The bucket's side of a resumable upload: S3's multipart upload of one library object. The client PUTs
 * the parts to presigned URLs (no bytes through a function); the service lists what S3 holds, completes
 * or aborts. The object is assembled at its library key, so completing needs no copy.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListPartsCommand,
  NoSuchUpload,
} from '@aws-sdk/client-s3';
import { s3 } from '../shared/clients/s3.ts';
import { config } from '../shared/config.ts';
import type { StoredPart } from '../domain/multipart-upload.ts';
import { presignUploadParts } from './download-signer.ts';

export interface S3Upload {
  objectKey: string;
  uploadId: string;
}

/** S3's answer for an upload that no longer exists (completed, aborted, or removed by the lifecycle rule). */
const isGone = (error: unknown) =>
  error instanceof NoSuchUpload || (error as { name?: string } | undefined)?.name === 'NoSuchUpload';

export async function createS3Upload(objectKey: string, contentType: string): Promise<S3Upload> {
  const created = await s3.send(
    new CreateMultipartUploadCommand({ Bucket: config.bucketName, Key: objectKey, ContentType: contentType }),
  );
  if (!created.UploadId) throw new Error('S3 answered CreateMultipartUpload without an UploadId');
  return { objectKey, uploadId: created.UploadId };
}

/** Presigned PUT URLs of the parts, in the order asked, each for exactly its `size`; signed in process, no request to S3. */
export const presignParts = (
  upload: S3Upload,
  parts: readonly { partNumber: number; size: number }[],
  expiresSeconds: number,
) => presignUploadParts(s3, config.bucketName, upload, parts, expiresSeconds);

/** Every part S3 holds, page after page (at most 1,000 a page, 10,000 parts in all); undefined when the upload is gone. */
export async function listS3Parts(upload: S3Upload): Promise<StoredPart[] | undefined> {
  const parts: StoredPart[] = [];
  let marker: string | undefined;
  try {
    do {
      const page = await s3.send(
        new ListPartsCommand({
          Bucket: config.bucketName,
          Key: upload.objectKey,
          UploadId: upload.uploadId,
          ...(marker !== undefined ? { PartNumberMarker: marker } : {}),
        }),
      );
      for (const part of page.Parts ?? [])
        parts.push({ partNumber: part.PartNumber ?? 0, size: part.Size ?? 0, etag: part.ETag ?? '' });
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
    } while (marker !== undefined);
  } catch (error) {
    if (isGone(error)) return undefined;
    throw error;
  }
  return parts;
}

/** Assembles the object from `parts`; false when S3 no longer knows the upload (completed before, or aborted). */
export async function completeS3Upload(upload: S3Upload, parts: readonly StoredPart[]): Promise<boolean> {
  try {
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: config.bucketName,
        Key: upload.objectKey,
        UploadId: upload.uploadId,
        MultipartUpload: { Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })) },
      }),
    );
    return true;
  } catch (error) {
    if (isGone(error)) return false;
    throw error;
  }
}

/** Removes the upload and its parts; an upload already gone is what was wanted. */
export async function abortS3Upload(upload: S3Upload): Promise<void> {
  try {
    await s3.send(
      new AbortMultipartUploadCommand({ Bucket: config.bucketName, Key: upload.objectKey, UploadId: upload.uploadId }),
    );
  } catch (error) {
    if (!isGone(error)) throw error;
  }
}
