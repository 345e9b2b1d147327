/**
 * The calls the local S3 reports for IAM checks: which identity asked for which IAM action on which
 * resource, as S3 would authorize it. A call is reported once its signature verified (it is attributable),
 * whether the local S3 then stores, answers or refuses it.
 */

/** How the caller proved who it is: a signed Authorization header, a presigned URL, or a presigned POST policy. */
export type S3CallVia = 'header' | 'presigned-url' | 'post-policy';

export interface S3Call {
  accessKeyId: string;
  /** The IAM action S3 authorizes the request with, e.g. `s3:PutObject`. */
  action: string;
  /** `arn:aws:s3:::<bucket>` or `arn:aws:s3:::<bucket>/<key>`. */
  resource: string;
  via: S3CallVia;
  /** The request's own condition keys, where it has any: a listing's `s3:prefix` and `s3:delimiter`. */
  context?: Record<string, string>;
  /**
   * The S3 error code when the local S3 refused the call after its signature verified, for a reason of
   * authorization (an expired URL or policy, a clock too far off, a POST outside its policy); absent otherwise.
   */
  refused?: string;
}

/** Called synchronously on the request's path: it must do no I/O and should not throw. */
export type S3CallRecorder = (call: S3Call) => void;

/** What a request names: method, bucket, key (absent for the bucket itself) and query parameters. */
export interface S3Target {
  method: string;
  bucket: string;
  key: string | undefined;
  query: Record<string, string | string[] | undefined>;
  /** `x-amz-copy-source`, `/bucket/key` or `bucket/key` (URL-encoded): a copy also reads its source. */
  copySource?: string | undefined;
}

export const bucketArn = (bucket: string) => `arn:aws:s3:::${bucket}`;
export const objectArn = (bucket: string, key: string) => `arn:aws:s3:::${bucket}/${key}`;

/** The IAM action S3 authorizes an object request with (the S3 API reference's "Permissions" of each operation). */
function objectAction({ method, query }: S3Target): string {
  const has = (name: string) => name in query;
  switch (method) {
    case 'GET':
      if (has('uploadId')) return 's3:ListMultipartUploadParts';
      if (has('tagging')) return 's3:GetObjectTagging';
      if (has('acl')) return 's3:GetObjectAcl';
      return 's3:GetObject';
    case 'HEAD':
      return 's3:GetObject';
    case 'DELETE':
      if (has('uploadId')) return 's3:AbortMultipartUpload';
      if (has('tagging')) return 's3:DeleteObjectTagging';
      return 's3:DeleteObject';
    case 'PUT':
      if (has('tagging')) return 's3:PutObjectTagging';
      if (has('acl')) return 's3:PutObjectAcl';
      return 's3:PutObject';
    default:
      // POST: CreateMultipartUpload (?uploads) and CompleteMultipartUpload (?uploadId) are s3:PutObject.
      return 's3:PutObject';
  }
}

/** The IAM action of a bucket request; a POST of the bucket (an upload form, DeleteObjects) is reported per object. */
function bucketAction({ method, query }: S3Target): string {
  const has = (name: string) => name in query;
  switch (method) {
    case 'GET':
      if (has('uploads')) return 's3:ListBucketMultipartUploads';
      if (has('location')) return 's3:GetBucketLocation';
      if (has('cors')) return 's3:GetBucketCORS';
      if (has('versions')) return 's3:ListBucketVersions';
      return 's3:ListBucket';
    case 'HEAD':
      return 's3:ListBucket';
    case 'PUT':
      return has('cors') ? 's3:PutBucketCORS' : 's3:CreateBucket';
    case 'DELETE':
      return has('cors') ? 's3:PutBucketCORS' : 's3:DeleteBucket';
    default:
      return 's3:PutObject';
  }
}

/** The condition keys a listing carries: the `prefix` and `delimiter` it asks for, as IAM sees them. */
function listingContext(query: S3Target['query']): Record<string, string> | undefined {
  const keys = Object.entries({ 's3:prefix': query.prefix, 's3:delimiter': query.delimiter }).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return keys.length > 0 ? Object.fromEntries(keys) : undefined;
}

/** What S3 authorizes a request with: one call, or two for a copy (it reads its source). */
export function callsOf(target: S3Target): Pick<S3Call, 'action' | 'resource' | 'context'>[] {
  if (target.key === undefined) {
    const action = bucketAction(target);
    const context = action === 's3:ListBucket' ? listingContext(target.query) : undefined;
    return [{ action, resource: bucketArn(target.bucket), ...(context ? { context } : {}) }];
  }
  const calls = [{ action: objectAction(target), resource: objectArn(target.bucket, target.key) }];
  if (target.method === 'PUT' && target.copySource) {
    const source = decodeURIComponent(target.copySource.split('?')[0] as string).replace(/^\//, '');
    calls.push({ action: 's3:GetObject', resource: `arn:aws:s3:::${source}` });
  }
  return calls;
}
