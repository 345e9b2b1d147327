/**
 * Large-file upload: a presigned POST straight into the bucket (no bytes through the function), then a
 * complete call that verifies the object and adds it to the library as push would. The rules of the
 * upload's life are in domain/large-file-upload.ts.
 */
import { claimStaleBefore, completionStep, uploadSweepAt } from '../domain/large-file-upload.ts';
import { conflict, notFound } from '../shared/errors.ts';
import { newGuid, newSecretId } from '../shared/ids.ts';
import { config } from '../shared/config.ts';
import { logger } from '../shared/powertools.ts';
import * as library from '../store/library-store.ts';
import * as objects from '../store/image-object-store.ts';
import { recordMetrics, resultOf, writeCommit, type IngestResult, type StoredImage } from './ingest-commit.ts';
import { verifyStoredImage, type VerifiedImage } from './stored-image-check.ts';

export interface UploadTicket {
  itemGuid: string;
  url: string;
  fields: Record<string, string>;
  maxBytes: number;
  expiresAt: number;
}

export async function createUpload(apiKeyId: string): Promise<UploadTicket> {
  const itemGuid = newGuid();
  const objectKey = objects.uploadObjectKey(itemGuid);
  const maxBytes = config.uploadMaxBytes;
  const expirySeconds = config.uploadExpirySeconds;
  const expiresAt = Date.now() + expirySeconds * 1000;
  const post = await objects.presignUpload(objectKey, maxBytes, expirySeconds);
  // The pending upload is this request's intent: once it expires, an upload never committed is swept.
  await library.putUpload(
    { itemGuid, apiKeyId, anonymousUserId: newGuid(), objectKey, expiresAt },
    uploadSweepAt(expiresAt),
  );
  return { itemGuid, url: post.url, fields: post.fields, maxBytes, expiresAt };
}

const uploadNotFound = (itemGuid: string) =>
  notFound('UploadNotFound', `No pending upload ${itemGuid} for this API key (it may have expired).`);

/** The answer of a decided upload (its records committed with the decision); the staging object goes. */
async function finishUpload(upload: library.PendingUpload, result: library.UploadResult): Promise<IngestResult> {
  await objects.deleteImageObject(upload.objectKey);
  return resultOf({ anonymousUserId: upload.anonymousUserId, token: result.token }, [imageOf(upload, result)]);
}

const imageOf = (upload: library.PendingUpload, result: library.UploadResult): StoredImage => ({
  item: result.item,
  objectKey: objects.libraryObjectKey(upload.anonymousUserId, result.item.itemGuid),
});

/** Gives this call's claim back, unless the upload was decided or taken over meanwhile. */
const release = (itemGuid: string, claimedAt: number) =>
  library
    .releaseUpload(itemGuid, claimedAt)
    .catch((error: unknown) => logger.warn('could not release upload claim', { itemGuid, reason: String(error) }));

const takenOver = (itemGuid: string) =>
  conflict('UploadInProgress', `Upload ${itemGuid} was taken over by another request; retry to read its outcome.`);

/**
 * Verifies the uploaded object and adds it to the library as push would. The decision (the upload's
 * result) commits in the same transaction as the item, its builder link, its anonymous user and its event,
 * and only while this call's claim holds: a repeated call answers the recorded result and writes nothing,
 * so it can neither undo a claim nor bring back an erased item (an erasure deletes the upload record too).
 * A refused object (not an image, too large) is deleted; the presigned upload may be used again.
 */
export async function completeUpload(apiKeyId: string, itemGuid: string, now = Date.now()): Promise<IngestResult> {
  const upload = await library.getUpload(itemGuid);
  const step = completionStep(upload, apiKeyId, now);
  if (step === 'notFound' || upload === undefined) throw uploadNotFound(itemGuid);
  if (step === 'finish') return finishUpload(upload, upload.result as library.UploadResult);
  if (!(await library.claimUpload(itemGuid, now, claimStaleBefore(now)))) {
    throw conflict('UploadInProgress', `Upload ${itemGuid} is being completed by another request; retry in a moment.`);
  }
  let verified: VerifiedImage;
  try {
    const checked = await verifyStoredImage(upload.objectKey, config.uploadMaxBytes);
    if (!checked)
      throw conflict(
        'UploadMissing',
        'Nothing has been uploaded for this item yet: POST the file to the presigned upload first.',
      );
    verified = checked;
    // The library copy is made before the decision; a call that dies here leaves the same key for the retry.
    await objects.copyObject(upload.objectKey, objects.libraryObjectKey(upload.anonymousUserId, itemGuid), {
      etag: verified.etag,
      contentType: verified.item.mimeType,
    });
  } catch (error) {
    await release(itemGuid, now);
    throw error;
  }
  const result: library.UploadResult = {
    item: { itemGuid, ...verified.item },
    token: newSecretId(),
    createdAt: now,
  };
  const ingest = { apiKeyId, anonymousUserId: upload.anonymousUserId, token: result.token, createdAt: now };
  let outcome: Awaited<ReturnType<typeof writeCommit>>;
  try {
    outcome = await writeCommit(ingest, [imageOf(upload, result)], [library.decideUpload(itemGuid, now, result)]);
  } catch (error) {
    // Unknown outcome: had it committed, the release fails its condition (a result is there); if not, a
    // retry need not wait for the claim to go stale. A commit still in flight fails once the claim is gone.
    await release(itemGuid, now);
    throw error;
  }
  // Anything but this call's commit means another call holds the upload now (its result is the answer).
  if (outcome !== 'committed') throw takenOver(itemGuid);
  const ingested = await finishUpload(upload, result);
  recordMetrics([result.item]);
  return ingested;
}
