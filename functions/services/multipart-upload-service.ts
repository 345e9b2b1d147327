/**
 * Resumable uploads, from start to abort: the client announces the file, PUTs its parts straight to S3
 * through presigned URLs (in any order, several at a time, again after a failure), may ask what S3 holds
 * to resume, and completes (multipart-complete-service.ts) or aborts. Only the API key that started an
 * upload reaches it; for any other it does not exist.
 */
import { SWEEP_AFTER_MS } from '../domain/library.ts';
import {
  checkPartNumbers,
  expectedPartSize,
  partPlan,
  uploadStep,
  type StoredPart,
} from '../domain/multipart-upload.ts';
import { decideCreation } from '../domain/open-quota.ts';
import { config } from '../shared/config.ts';
import { conflict, DomainError, notFound, payloadTooLarge } from '../shared/errors.ts';
import { newGuid } from '../shared/ids.ts';
import { logger } from '../shared/powertools.ts';
import { retryOnConflict } from '../shared/retry.ts';
import { libraryObjectKey } from '../store/image-object-store.ts';
import * as s3Uploads from '../store/multipart-object-store.ts';
import { admitUpload, readOpenUploads } from '../store/multipart-quota-store.ts';
import * as records from '../store/multipart-upload-store.ts';
import { isQuotaRace, openEntriesOf, QuotaRaceLost } from '../store/quota-record.ts';
import { transact } from '../store/transaction.ts';

export type MultipartUpload = records.MultipartUpload;

/** How long a complete call may hold an upload before another may take it over: longer than its function may run. */
export const CLAIM_STALE_MS = 5 * 60 * 1000;

export const uploadNotFound = (itemGuid: string) =>
  notFound('UploadNotFound', `No open upload ${itemGuid} for this API key (it may have expired or been aborted).`);

export const uploadInProgress = (itemGuid: string) =>
  new DomainError(
    'Conflict',
    'UploadInProgress',
    `Upload ${itemGuid} is being completed by another request; retry in a moment for its outcome.`,
    { retryAfterSeconds: 5 },
  );

const notAbortable = (itemGuid: string) =>
  conflict('UploadCompleted', `Upload ${itemGuid} is completed (or refused) and can no longer be aborted.`);

const quotaExceeded = (quota: number) =>
  conflict(
    'UploadQuotaExceeded',
    `An API key may have at most ${quota} open resumable uploads; complete or abort one first (or let one expire).`,
  );

export interface NewUpload {
  fileName: string;
  contentType: string;
  fileSize: number;
}

/**
 * Starts an upload, unless its API key has `MULTIPART_MAX_OPEN_PER_KEY` open already: the quota is read
 * first, so a full key costs S3 nothing; then S3's upload is created and one transaction creates the
 * upload's record and enters it in the key's open uploads, under the quota's condition (multipart-quota-store.ts).
 * A lost race decides again on the record the failed condition returned. A refused start aborts its S3 upload.
 */
export async function startUpload(apiKeyId: string, file: NewUpload, now = Date.now()): Promise<MultipartUpload> {
  const maxBytes = config.multipartMaxBytes;
  if (file.fileSize > maxBytes)
    throw payloadTooLarge(`FileSize ${file.fileSize} is over the largest resumable upload, ${maxBytes} bytes.`);
  const quota = config.multipartMaxOpenPerKey;
  let seen = await readOpenUploads(apiKeyId);
  if (!decideCreation(seen ?? {}, quota, now).admit) throw quotaExceeded(quota);
  const itemGuid = newGuid();
  const anonymousUserId = newGuid();
  const s3Upload = await s3Uploads.createS3Upload(libraryObjectKey(anonymousUserId, itemGuid), file.contentType);
  const upload: MultipartUpload = {
    itemGuid,
    apiKeyId,
    anonymousUserId,
    ...s3Upload,
    ...file,
    ...partPlan(file.fileSize),
    createdAt: now,
    expiresAt: now + config.multipartExpirySeconds * 1000,
    state: 'open',
    counted: true,
  };
  try {
    await retryOnConflict(async () => {
      const decision = decideCreation(seen ?? {}, quota, now);
      if (!decision.admit) throw quotaExceeded(quota);
      const { expiresAt } = upload;
      const outcome = await transact([
        // The record is the upload's intent: once it expires, the sweeper aborts what was never completed.
        records.createMultipartUploadAction(upload, expiresAt + SWEEP_AFTER_MS),
        admitUpload({ apiKeyId, itemGuid, expiresAt, seen, reclaim: decision.reclaim, quota }),
      ]);
      if (outcome.committed) return;
      const lost = outcome.failed.find((failed) => failed.index === 1);
      if (!lost) throw new Error(`upload record ${itemGuid} exists already`);
      seen = openEntriesOf(lost.item);
      throw new QuotaRaceLost();
    }, isQuotaRace);
  } catch (error) {
    // Nothing refers to the S3 upload: abort it now rather than leave it to the bucket's lifecycle rule.
    await s3Uploads
      .abortS3Upload(upload)
      .catch((reason: unknown) =>
        logger.warn('could not abort a refused upload', { itemGuid, reason: String(reason) }),
      );
    throw error;
  }
  return upload;
}

/** The upload of this key, open for parts; 404 otherwise, 409 once completed. */
async function openUpload(apiKeyId: string, itemGuid: string, now: number): Promise<MultipartUpload> {
  const upload = await records.getMultipartUpload(itemGuid);
  const step = uploadStep(upload, apiKeyId, now);
  if (step === 'notFound' || upload === undefined) throw uploadNotFound(itemGuid);
  if (step !== 'open')
    throw conflict('UploadCompleted', `Upload ${itemGuid} is completed; POST complete again to read its outcome.`);
  return upload;
}

export interface SignedPart {
  partNumber: number;
  url: string;
  expiresAt: number;
}

export async function signParts(
  apiKeyId: string,
  itemGuid: string,
  partNumbers: readonly number[],
  now = Date.now(),
): Promise<SignedPart[]> {
  const upload = await openUpload(apiKeyId, itemGuid, now);
  checkPartNumbers(partNumbers, upload);
  const seconds = Math.max(1, Math.min(config.multipartPartUrlSeconds, Math.floor((upload.expiresAt - now) / 1000)));
  const parts = partNumbers.map((partNumber) => ({
    partNumber,
    size: expectedPartSize(upload.fileSize, upload, partNumber),
  }));
  const urls = await s3Uploads.presignParts(upload, parts, seconds);
  return partNumbers.map((partNumber, index) => ({
    partNumber,
    url: urls[index] as string,
    expiresAt: now + seconds * 1000,
  }));
}

/** The upload and the parts S3 holds (every page of ListParts), for a client that resumes. */
export async function uploadStatus(
  apiKeyId: string,
  itemGuid: string,
  now = Date.now(),
): Promise<{ upload: MultipartUpload; parts: StoredPart[] }> {
  const upload = await openUpload(apiKeyId, itemGuid, now);
  const parts = await s3Uploads.listS3Parts(upload);
  // Gone from S3 while the record is open: aborted by the lifecycle rule, or completed by a call under way.
  if (parts === undefined) throw uploadNotFound(itemGuid);
  return { upload, parts };
}

/**
 * Aborts the upload: the record first (one conditional write, so a complete call cannot start after it),
 * then S3's upload and its parts. A repeat answers the same and finishes the S3 side if it failed before.
 */
export async function abortUpload(apiKeyId: string, itemGuid: string, now = Date.now()): Promise<void> {
  const upload = await records.getMultipartUpload(itemGuid);
  if (!upload || upload.apiKeyId !== apiKeyId) throw uploadNotFound(itemGuid);
  if (upload.state !== 'aborted') {
    const step = uploadStep(upload, apiKeyId, now);
    if (step === 'notFound') throw uploadNotFound(itemGuid);
    if (step !== 'open') throw notAbortable(itemGuid);
    if (!(await records.abortMultipartUploadRecord(upload, now - CLAIM_STALE_MS))) {
      // Lost a race: aborted by a concurrent DELETE (fine), or taken by a complete call.
      const current = await records.getMultipartUpload(itemGuid);
      if (current?.state !== 'aborted')
        throw current?.result !== undefined || current?.state === 'refused'
          ? notAbortable(itemGuid)
          : uploadInProgress(itemGuid);
    }
  }
  await s3Uploads.abortS3Upload(upload);
}
