/**
 * The one place that reads and writes resumable uploads' records (PK=UPLOAD#<itemGuid> SK=MULTIPART).
 * Every write is one conditional write on the one record, or (the decision) a conditional action of the
 * commit's transaction, so two calls racing on an upload (two complete calls, a complete and an abort)
 * cannot both win: the loser's condition fails and it writes nothing.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import type { LibraryItem } from '../domain/library.ts';
import type { UploadState } from '../domain/multipart-upload.ts';
import { multipartUploadKey } from './keys.ts';
import { fromItem, toItem } from './table.ts';
import { update, type WriteAction } from './transaction.ts';
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
}

export interface MultipartResult {
  item: LibraryItem;
  token: string;
  createdAt: number;
}

/** Written once: a fresh guid, so the condition only guards against a replayed write of another upload. */
export const putMultipartUpload = (upload: MultipartUpload, sweepAt: number): Promise<boolean> =>
  writeIf(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(multipartUploadKey(upload.itemGuid), MULTIPART_UPLOAD_TYPE, upload, sweepAt),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );

export async function getMultipartUpload(itemGuid: string): Promise<MultipartUpload | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: multipartUploadKey(itemGuid), ConsistentRead: true }),
  );
  return result.Item ? fromItem<MultipartUpload>(result.Item) : undefined;
}

/** `state` and `result` are reserved words: named by placeholder, and only where used (DynamoDB refuses unused names). */
const NAMES = { '#state': 'state', '#result': 'result' };

function updateIf(itemGuid: string, update: string, condition: string, values: Record<string, unknown>) {
  const expressions = `${update} ${condition}`;
  return writeIf(
    new UpdateCommand({
      TableName: config.tableName,
      Key: multipartUploadKey(itemGuid),
      UpdateExpression: update,
      ConditionExpression: condition,
      ExpressionAttributeNames: Object.fromEntries(
        Object.entries(NAMES).filter(([name]) => expressions.includes(name)),
      ),
      ExpressionAttributeValues: values,
    }),
  );
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
 * Decides the upload, only while the claim is still this call's: an action of the library commit's own
 * transaction (services/ingest-commit.ts writeCommit), so the decision and the item exist both or neither.
 */
export const decideMultipartUpload = (itemGuid: string, claimedAt: number, result: MultipartResult): WriteAction =>
  update(multipartUploadKey(itemGuid), 'SET #result = :result', {
    values: { ':result': result },
    condition: { if: MINE, values: { ':claimedAt': claimedAt }, names: { '#result': 'result' } },
  });

/** Refuses the upload (its bytes are no image), only while the claim is still this call's. */
export const refuseMultipartUpload = (itemGuid: string, claimedAt: number, refusal: MultipartUpload['refusal']) =>
  updateIf(itemGuid, 'SET #state = :refused, refusal = :refusal REMOVE claimedAt', MINE, {
    ':claimedAt': claimedAt,
    ':refused': 'refused',
    ':refusal': refusal,
  });

/** Marks the upload aborted; false when it is decided, refused or being completed. */
export const abortMultipartUploadRecord = (itemGuid: string, staleBefore: number): Promise<boolean> =>
  updateIf(itemGuid, 'SET #state = :aborted', FREE, { ':open': 'open', ':stale': staleBefore, ':aborted': 'aborted' });
