/**
 * Completing a resumable upload: the parts the client names are checked against what S3 holds, S3
 * assembles the object at its library key, the object is streamed once through the image meter (type,
 * size, MD5 of the whole file, metadata; never held whole), and the item is committed through the shared
 * library commit (ingest-commit.ts) exactly as a push's. S3 keeps the type the upload was started with
 * (the client's declaration): an object whose bytes are of another type is re-typed to the sniffed one
 * before the commit, so a stored object's own metadata says what its bytes are. The answer is a push's,
 * `{ LibraryItem, ProductBuilderUrl }`.
 *
 * One complete call at a time holds the upload (a conditional claim on its record). Its outcome (the
 * decision) commits in the same transaction as the item, its builder link, its anonymous user and its
 * event (writeCommit's `also`): a repeated call answers it and writes nothing; a refusal (no image: the
 * object is deleted, nothing kept) is answered again as the same 415. A call that
 * dies after S3 assembled the object leaves it for the next call, which finds the S3 upload gone and checks
 * the object instead; one that dies for good leaves it to the sweeper once the record expires.
 */
import { partsToComplete, uploadStep, type NamedPart, type StoredPart } from '../domain/multipart-upload.ts';
import { DomainError } from '../shared/errors.ts';
import { newSecretId } from '../shared/ids.ts';
import { logger } from '../shared/powertools.ts';
import { copyObject } from '../store/image-object-store.ts';
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

/** Answers an upload decided earlier: its decision committed with its item in one transaction, nothing is left to write. */
async function finish(upload: MultipartUpload, result: records.MultipartResult): Promise<IngestResult> {
  const { ingest, images } = ingestOf(upload, result);
  return resultOf(ingest, images);
}

/** Gives this call's claim back, unless the upload was decided or taken over meanwhile. */
const release = (itemGuid: string, claimedAt: number) =>
  records
    .releaseMultipartUpload(itemGuid, claimedAt)
    .catch((error: unknown) => logger.warn('could not release upload claim', { itemGuid, reason: String(error) }));

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

/**
 * The object S3 assembles from `parts`, checked and typed as its bytes are (a copy onto itself of the
 * version checked, when the declared type was another); undefined when there is no object (the upload was aborted).
 */
async function assemble(upload: MultipartUpload, parts: StoredPart[] | undefined): Promise<VerifiedImage | undefined> {
  if (parts !== undefined) await s3Uploads.completeS3Upload(upload, parts);
  const verified = await verifyStoredImage(upload.objectKey, upload.fileSize);
  if (verified !== undefined && verified.storedType !== verified.item.mimeType)
    await copyObject(upload.objectKey, upload.objectKey, { etag: verified.etag, contentType: verified.item.mimeType });
  return verified;
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
      await records.refuseMultipartUpload(upload, now, { code: error.code, message: error.message });
    } else await release(itemGuid, now);
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
  const { ingest, images } = ingestOf(upload, result);
  let outcome: Awaited<ReturnType<typeof writeCommit>>;
  try {
    // The decision commits in the library commit's own transaction, only while this call's claim holds.
    outcome = await writeCommit(ingest, images, records.decideMultipartUpload(upload, now, result));
  } catch (error) {
    // Outcome unknown: had it committed, the release fails its condition (a result is there).
    await release(itemGuid, now);
    throw error;
  }
  // Anything but this call's commit means another call holds the upload now (its result is the answer).
  if (outcome !== 'committed') throw uploadInProgress(itemGuid);
  recordMetrics([result.item]);
  return resultOf(ingest, images);
}
