/**
 * Records the calls of the service's own SDK clients (in-process handlers) as IAM requests, put down to the
 * function a test says is being served: for flows that run their handlers in one process, where every
 * call is signed with the tools' key (until each function signs with its own, lib/local/function-credentials.ts).
 * DynamoDB calls are read after serialization, as the recorder in front of DynamoDB Local reads them;
 * S3 calls by command (presigned URLs never pass through the client: the local S3 records those).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { recordAwsCall, type AwsCall } from '../../../lib/local/aws-call-log.ts';
import { dynamoDbIamRequests } from '../../../lib/local/dynamodb-iam-requests.ts';
import { functionCredentials } from '../../../lib/local/function-credentials.ts';

/** S3 operations and the IAM actions they need (multipart parts are s3:PutObject; a copy reads its source). */
const S3_ACTIONS: Record<string, string> = {
  PutObject: 's3:PutObject',
  CreateMultipartUpload: 's3:PutObject',
  UploadPart: 's3:PutObject',
  CompleteMultipartUpload: 's3:PutObject',
  AbortMultipartUpload: 's3:AbortMultipartUpload',
  ListParts: 's3:ListMultipartUploadParts',
  GetObject: 's3:GetObject',
  HeadObject: 's3:GetObject',
  CopyObject: 's3:PutObject',
  DeleteObject: 's3:DeleteObject',
  ListObjectsV2: 's3:ListBucket',
};
const S3_CONTEXT = { 'aws:SecureTransport': 'true', 's3:TlsVersion': '1.2' };

/** The IAM requests of an S3 command. */
function s3IamRequests(operation: string, input: Record<string, any>): Omit<AwsCall, 'accessKeyId'>[] {
  const object = (key: string) => `arn:aws:s3:::${input.Bucket}/${key}`;
  const call = (action: string, resource: string) => ({ action, resource, context: S3_CONTEXT, via: operation });
  if (operation === 'ListObjectsV2') return [call('s3:ListBucket', `arn:aws:s3:::${input.Bucket}`)];
  if (operation === 'DeleteObjects')
    return (input.Delete.Objects as { Key: string }[]).map(({ Key }) => call('s3:DeleteObject', object(Key)));
  const source =
    operation === 'CopyObject' ? [call('s3:GetObject', `arn:aws:s3:::${decodeURIComponent(input.CopySource)}`)] : [];
  return [...source, call(S3_ACTIONS[operation] ?? `s3:${operation}`, object(input.Key))];
}

/**
 * Adds middleware to the clients that records each call, signed in AWS by the role of `functionOf()` at
 * the time (undefined: none, not recorded), into the returned list and the run's call log.
 */
export function recordSdkCalls(
  clients: { dynamoDb: DynamoDBClient; s3: S3Client },
  functionOf: (call: Omit<AwsCall, 'accessKeyId'>) => string | undefined,
): AwsCall[] {
  const calls: AwsCall[] = [];
  const note = (call: Omit<AwsCall, 'accessKeyId'>) => {
    const handler = functionOf(call);
    if (handler === undefined) return;
    const recorded = { accessKeyId: functionCredentials(handler).accessKeyId, ...call };
    calls.push(recorded);
    recordAwsCall(recorded);
  };
  clients.dynamoDb.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers: Record<string, string>; body: string | Uint8Array };
      const operation = String(request.headers['x-amz-target']).replace(/^DynamoDB_\d+\./, '');
      const body = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
      for (const iamRequest of dynamoDbIamRequests(operation, JSON.parse(body)))
        note({ ...iamRequest, via: operation });
      return next(args);
    },
    { step: 'build', name: 'recordIamRequests' },
  );
  clients.s3.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName).replace(/Command$/, '');
      for (const call of s3IamRequests(operation, args.input as Record<string, any>)) note(call);
      return next(args);
    },
    { step: 'initialize', name: 'recordIamRequests' },
  );
  return calls;
}
