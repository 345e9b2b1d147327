/**
 * An API key's open resumable uploads (PK=UPLOAD#APIKEY#<key id> SK=QUOTA#MULTIPART): a quota record
 * (quota-record.ts) changed only inside the transactions that start an upload (with its record) and end
 * it (its decision, refusal or abort). An upload's expiry never moves, so one past its expiry is open no
 * more: a start at the quota reclaims it as it is, and nothing has to be released when it expires.
 */
import type { OpenEntries } from '../domain/open-quota.ts';
import { multipartQuotaKey } from './keys.ts';
import { admissionAction, readOpenEntries, releaseAction } from './quota-record.ts';
import type { WriteAction } from './transaction.ts';

const QUOTA_TYPE = 'MultipartQuota';

/** The key's open uploads as recorded; undefined when it has no quota record yet. */
export const readOpenUploads = (apiKeyId: string): Promise<OpenEntries | undefined> =>
  readOpenEntries(multipartQuotaKey(apiKeyId));

export interface UploadAdmission {
  apiKeyId: string;
  itemGuid: string;
  expiresAt: number;
  seen: OpenEntries | undefined;
  reclaim: readonly string[];
  quota: number;
}

/** Enters the upload in its key's record, in the transaction that creates the upload's record. */
export const admitUpload = (admission: UploadAdmission): WriteAction =>
  admissionAction({
    ...admission,
    key: multipartQuotaKey(admission.apiKeyId),
    type: QUOTA_TYPE,
    id: admission.itemGuid,
  });

/**
 * Takes the upload off its key's record, in the transaction that ends it; none for an upload started before
 * the quota existed (it was never entered, and its key may have no record).
 */
export const releaseUpload = (upload: { apiKeyId: string; itemGuid: string; counted?: true }): WriteAction[] =>
  upload.counted ? [releaseAction(multipartQuotaKey(upload.apiKeyId), upload.itemGuid)] : [];
