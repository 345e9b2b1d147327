/**
 * The AWS call log: every call a function makes to the local stand-ins (DynamoDB, S3, EventBridge, KMS, SQS), as
 * IAM would authorize it, so the test command can evaluate each against the template's policies
 * (test/support/iam). Only written when AWS_CALL_LOG_DIR names a directory (the test run sets it); then
 * each process appends to a JSONL file of its own, one line per distinct call (distinct-lines.ts).
 */
import { appendDistinctLine, readDistinctLines } from './distinct-lines.ts';
import { functionOfAccessKey } from './function-credentials.ts';
import type { S3Call } from './s3-calls.ts';

/** The environment variable naming the directory of the log; unset, nothing is recorded. */
export const AWS_CALL_LOG_DIR = 'AWS_CALL_LOG_DIR';

/** The account and region the local stand-ins put in the ARNs they record (the evaluator maps them to the template's). */
export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_REGION = 'us-east-1';

/** One call as IAM authorizes it. */
export interface AwsCall {
  /** The access key id that signed the request (its Credential=). */
  accessKeyId: string;
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
  /** How the call arrived: the API operation (`TransactWriteItems`), or the S3 stand-in's `via` (presigned URL, POST). */
  via: string;
}

/** The directory calls are recorded in, or undefined when recording is off. */
export const awsCallLogDir = (): string | undefined => process.env[AWS_CALL_LOG_DIR] || undefined;

/**
 * `value` with each identifier in it (a `#`- or `/`-separated part of 16 characters or more with a digit:
 * guids, hashes, tokens) written `{id}`. Policies grant by key and object prefix, never by identifier, so
 * the verdict is the same, and calls that differ only by the item they touch are one line of the log.
 */
export const shapeOf = (value: string): string =>
  value.replace(/(?<=^|[#/])(?=[^#/]*\d)[\w.%=-]{16,}(?=$|[#/])/g, '{id}');

const shaped = (call: AwsCall): AwsCall => ({
  ...call,
  resource: shapeOf(call.resource),
  context: Object.fromEntries(
    Object.entries(call.context).map(([key, value]) => [
      key,
      Array.isArray(value) ? [...new Set(value.map(shapeOf))] : shapeOf(value),
    ]),
  ),
});

/**
 * Appends `call` (its identifiers shaped) to this process's log unless an identical call is there already. Calls signed by the
 * tools' key (tests, CLIs, the stand-ins' own clients) are not a function's and are not recorded.
 * Synchronous on purpose: a line is on disk before the answer it belongs to leaves, so a run's log is
 * complete when its processes end, however they end.
 */
export function recordAwsCall(call: AwsCall, dir = awsCallLogDir()): void {
  if (dir === undefined || functionOfAccessKey(call.accessKeyId) === undefined) return;
  appendDistinctLine(dir, 'calls', JSON.stringify(shaped(call)));
}

/**
 * The local S3's `onRequest`. In AWS every SDK call and presigned URL goes over HTTPS with TLS 1.2 at
 * least (the SDK's floor; the bucket policy denies less), whatever loopback HTTP the local one used.
 */
export const recordS3Request = ({ accessKeyId, action, resource, via, context }: S3Call): void =>
  recordAwsCall({
    accessKeyId,
    action,
    resource,
    via,
    context: { ...context, 'aws:SecureTransport': 'true', 's3:TlsVersion': '1.2' },
  });

/** A call to one of the JSON-protocol stand-ins (EventBridge, KMS, SQS): its action, resource ARN and condition keys. */
export interface ServiceCall {
  accessKeyId: string;
  action: string;
  resource: string;
  /** The API operation (`PutEvents`, `Decrypt`, `SendMessageBatch`). */
  via: string;
  context?: Record<string, string | string[]>;
}

/** For the JSON-protocol stand-ins; in AWS their SDK clients always call over HTTPS. */
export const recordServiceCall = ({ context, ...call }: ServiceCall): void =>
  recordAwsCall({ ...call, context: { ...context, 'aws:SecureTransport': 'true' } });

/** Every distinct call recorded in `dir` by any process. */
export const readAwsCallLog = (dir: string): AwsCall[] => readDistinctLines<AwsCall>(dir);
