/**
 * The one place that reads and writes resumable uploads' records (PK=UPLOAD#<itemGuid> SK=MULTIPART).
 * Every write is one conditional write on the one record, or a conditional action of a transaction with
 * the key's open uploads (multipart-quota-store.ts: the start, the refusal, the abort) and (the decision)
 * of the commit's, so two calls racing on an upload (two complete calls, a complete and an abort) cannot
 * both win: the loser's condition fails and it writes nothing.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import type { LibraryItem } from '../domain/library.ts';
import type { UploadState } from '../domain/multipart-upload.ts';
import { multipartUploadKey } from './keys.ts';
import { transactRetrying } from './library-store.ts';
import { releaseUpload } from './multipart-quota-store.ts';
import { fromItem } from './table.ts';
import { create, update, type WriteAction } from './transaction.ts';
import { writeIf } from './writes.ts';

export const MULTIPART_UPLOAD_TYPE = 'MultipartUpload';

export interface MultipartUpload {
  itemGuid: string;
  apiKeyId: string;
  /** The anonymous user the completed upload will belong to; the object goes under its prefix. */
  anonymousUserId: string;
  /** Where S3 assembles the parts: the library object itself (`library/<anonymousUserId>/<itemGuid>`). */
  objectKey: string;
  /** S3's id of the multipart upload. */
  uploadId: string;
  fileName: string;
  contentType: string;
  fileSize: number;
  partSize: number;
  partCount: number;
  createdAt: number;
  expiresAt: number;
  state: UploadState;
  /** Set while one complete call works on the upload; a stale claim (the call died) may be taken over. */
  claimedAt?: number;
  /** Set once decided: a repeated complete call answers this. */
  result?: MultipartResult;
  /** Set when refused: a repeated complete call answers the same refusal. */
  refusal?: { code: string; message: string };
  /** Listed in its key's open uploads until it ends; absent on uploads started before that quota existed. */
  counted?: true;
}

export interface MultipartResult {
  item: LibraryItem;
  token: string;
  createdAt: number;
}

/** Created once, with its admission to the key's quota: a fresh guid, so the condition only guards against a replayed write. */
export const createMultipartUploadAction = (upload: MultipartUpload, sweepAt: number): WriteAction =>
  create(multipartUploadKey(upload.itemGuid), MULTIPART_UPLOAD_TYPE, upload, sweepAt);

export async function getMultipartUpload(itemGuid: string): Promise<MultipartUpload | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: multipartUploadKey(itemGuid), ConsistentRead: true }),
  );
  return result.Item ? fromItem<MultipartUpload>(result.Item) : undefined;
}

/** `state` and `result` are reserved words: named by placeholder, and only where used (DynamoDB refuses unused names). */
const NAMES = { '#state': 'state', '#result': 'result' };
const namesIn = (expressions: string) =>
  Object.fromEntries(Object.entries(NAMES).filter(([name]) => expressions.includes(name)));

const updateIf = (itemGuid: string, expression: string, condition: string, values: Record<string, unknown>) =>
  writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: multipartUploadKey(itemGuid),
      UpdateExpression: expression,
      ConditionExpression: condition,
      ExpressionAttributeNames: namesIn(`${expression} ${condition}`),
      ExpressionAttributeValues: values,
    }),
  );

/** The same conditional update, as an action of a transaction. */
const updateAction = (itemGuid: string, expression: string, condition: string, values: Record<string, unknown>) =>
  update(multipartUploadKey(itemGuid), expression, {
    condition: { if: condition, values, names: namesIn(`${expression} ${condition}`) },
  });

/** Ends the upload with `expression` under `condition`, and takes it off its key's open uploads in the same transaction. */
async function endIf(
  upload: MultipartUpload,
  expression: string,
  condition: string,
  values: Record<string, unknown>,
): Promise<boolean> {
  const outcome = await transactRetrying([
    updateAction(upload.itemGuid, expression, condition, values),
    ...releaseUpload(upload),
  ]);
  return outcome.committed;
}

/** Open, undecided, and no other call's fresh claim on it. */
const FREE =
  '#state = :open AND attribute_not_exists(#result) AND (attribute_not_exists(claimedAt) OR claimedAt < :stale)';
/** Still this call's claim, and undecided. */
const MINE = 'claimedAt = :claimedAt AND attribute_not_exists(#result)';

/** Takes the upload for one complete call (its claim is `now`); false when it is not free. */
export const claimMultipartUpload = (itemGuid: string, now: number, staleBefore: number): Promise<boolean> =>
  updateIf(itemGuid, 'SET claimedAt = :now', FREE, { ':now': now, ':open': 'open', ':stale': staleBefore });

/** Gives the claim back (a part was wrong, or a read failed), unless another call has taken it over. */
export const releaseMultipartUpload = (itemGuid: string, claimedAt: number): Promise<boolean> =>
  updateIf(itemGuid, 'REMOVE claimedAt', MINE, { ':claimedAt': claimedAt });

/**
 * Decides the upload, only while the claim is still this call's, and takes it off its key's open uploads:
 * actions of the library commit's own transaction (services/ingest-commit.ts writeCommit), so the decision
 * and the item exist both or neither.
 */
export const decideMultipartUpload = (
  upload: MultipartUpload,
  claimedAt: number,
  result: MultipartResult,
): WriteAction[] => [
  updateAction(upload.itemGuid, 'SET #result = :result', MINE, { ':result': result, ':claimedAt': claimedAt }),
  ...releaseUpload(upload),
];

/** Refuses the upload (its bytes are no image), only while the claim is still this call's. */
export const refuseMultipartUpload = (
  upload: MultipartUpload,
  claimedAt: number,
  refusal: MultipartUpload['refusal'],
) =>
  endIf(upload, 'SET #state = :refused, refusal = :refusal REMOVE claimedAt', MINE, {
    ':claimedAt': claimedAt,
    ':refused': 'refused',
    ':refusal': refusal,
  });

/** Marks the upload aborted; false when it is decided, refused or being completed. */
export const abortMultipartUploadRecord = (upload: MultipartUpload, staleBefore: number): Promise<boolean> =>
  endIf(upload, 'SET #state = :aborted', FREE, { ':open': 'open', ':stale': staleBefore, ':aborted': 'aborted' });
