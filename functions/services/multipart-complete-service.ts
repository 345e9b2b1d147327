/**
 * Completing a resumable upload: the parts the client names are checked against what S3 holds, S3
 * assembles the object at its library key, the object is streamed once through the image meter (type,
 * size, MD5 of the whole file, metadata; never held whole), and the item is committed through the shared
 * library commit (ingest-commit.ts) exactly as a push's. The answer is a push's, `{ LibraryItem,
 * ProductBuilderUrl }`.
 *
 * One complete call at a time holds the upload (a conditional claim on its record). Its outcome is recorded
 * on the record before the commit: a repeated call answers it (writing nothing once committed), a
 * refusal (no image: the object is deleted, nothing kept) is answered again as the same 415. A call that
 * dies after S3 assembled the object leaves it for the next call, which finds the S3 upload gone and checks
 * the object instead; one that dies for good leaves it to the sweeper once the record expires.
 */
import { partsToComplete, uploadStep, type NamedPart, type StoredPart } from '../domain/multipart-upload.ts';
import { DomainError } from '../shared/errors.ts';
import { newSecretId } from '../shared/ids.ts';
import { logger } from '../shared/powertools.ts';
import * as library from '../store/library-store.ts';
import * as s3Uploads from '../store/multipart-object-store.ts';
import * as records from '../store/multipart-upload-store.ts';
import { recordMetrics, resultOf, writeCommit, type IngestResult } from './ingest-commit.ts';
import { CLAIM_STALE_MS, uploadInProgress, uploadNotFound, type MultipartUpload } from './multipart-upload-service.ts';
import { verifyStoredImage, type VerifiedImage } from './stored-image-check.ts';

const ingestOf = (upload: MultipartUpload, result: records.MultipartResult) => ({
  ingest: {
    apiKeyId: upload.apiKeyId,
    anonymousUserId: upload.anonymousUserId,
    token: result.token,
    createdAt: result.createdAt,
  },
  images: [{ item: result.item, objectKey: upload.objectKey, fileName: upload.fileName }],
});

/** Commits a decided upload through the library's shared commit, and answers its result. */
async function commit(upload: MultipartUpload, result: records.MultipartResult): Promise<IngestResult> {
  const { ingest, images } = ingestOf(upload, result);
  await writeCommit(ingest, images);
  return resultOf(ingest, images);
}

/** Answers an upload decided earlier, committing it first only if that call died before its commit. */
async function finish(upload: MultipartUpload, result: records.MultipartResult): Promise<IngestResult> {
  if (!(await library.anonymousUserExists(upload.anonymousUserId))) return commit(upload, result);
  const { ingest, images } = ingestOf(upload, result);
  return resultOf(ingest, images);
}

const refusalOf = (upload: MultipartUpload) =>
  new DomainError('UnsupportedMedia', upload.refusal?.code ?? 'UnsupportedMediaType', upload.refusal?.message ?? '');

/** What a call answers for an upload another call has decided or refused, or that is gone. */
function answerOf(
  itemGuid: string,
  upload: MultipartUpload | undefined,
  apiKeyId: string,
  now: number,
): Promise<IngestResult> {
  const step = uploadStep(upload, apiKeyId, now);
  if (step === 'notFound' || upload === undefined) throw uploadNotFound(itemGuid);
  if (step === 'refused') throw refusalOf(upload);
  if (step === 'decided') return finish(upload, upload.result as records.MultipartResult);
  throw uploadInProgress(itemGuid);
}

/**
 * The parts to assemble, checked against what S3 holds before anything is written (a wrong list is a 400
 * that changes nothing); undefined when S3 no longer knows the upload because an earlier call completed
 * it and died before recording the outcome: the object is then checked as it is.
 */
async function checkedParts(upload: MultipartUpload, named: readonly NamedPart[]): Promise<StoredPart[] | undefined> {
  const stored = await s3Uploads.listS3Parts(upload);
  return stored === undefined ? undefined : partsToComplete(named, stored, upload.fileSize, upload);
}

/** The object S3 assembles from `parts`, checked; undefined when there is no object (the upload was aborted). */
async function assemble(upload: MultipartUpload, parts: StoredPart[] | undefined): Promise<VerifiedImage | undefined> {
  if (parts !== undefined) await s3Uploads.completeS3Upload(upload, parts);
  return verifyStoredImage(upload.objectKey, upload.fileSize);
}

export async function completeUpload(
  apiKeyId: string,
  itemGuid: string,
  named: readonly NamedPart[],
  now = Date.now(),
): Promise<IngestResult> {
  const upload = await records.getMultipartUpload(itemGuid);
  if (uploadStep(upload, apiKeyId, now) !== 'open' || upload === undefined)
    return answerOf(itemGuid, upload, apiKeyId, now);
  const parts = await checkedParts(upload, named);
  if (!(await records.claimMultipartUpload(itemGuid, now, now - CLAIM_STALE_MS)))
    return answerOf(itemGuid, await records.getMultipartUpload(itemGuid), apiKeyId, now);

  let verified: VerifiedImage | undefined;
  try {
    verified = await assemble(upload, parts);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'UnsupportedMedia') {
      // The object is deleted already (stored-image-check.ts); the refusal is the upload's outcome.
      await records.refuseMultipartUpload(itemGuid, now, { code: error.code, message: error.message });
    } else {
      await records
        .releaseMultipartUpload(itemGuid, now)
        .catch((release: unknown) =>
          logger.warn('could not release upload claim', { itemGuid, reason: String(release) }),
        );
    }
    throw error;
  }
  if (verified === undefined) {
    await records.releaseMultipartUpload(itemGuid, now);
    throw uploadNotFound(itemGuid);
  }
  const result: records.MultipartResult = {
    item: { itemGuid, ...verified.item },
    token: newSecretId(),
    createdAt: now,
  };
  if (!(await records.recordMultipartResult(itemGuid, now, result))) throw uploadInProgress(itemGuid);
  // Decided just now by this call: nothing has committed it yet.
  const ingested = await commit(upload, result);
  recordMetrics([result.item]);
  return ingested;
}
