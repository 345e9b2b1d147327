/** The AWS call log (lib/local/aws-call-log.ts): what the stand-ins hand it, once per distinct call, functions only. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import {
  AWS_CALL_LOG_DIR,
  readAwsCallLog,
  recordServiceCall,
  recordS3Request,
  shapeOf,
} from '../../lib/local/aws-call-log.ts';
import { functionCredentials, TOOL_CREDENTIALS } from '../../lib/local/function-credentials.ts';

const dir = mkdtempSync(join(tmpdir(), 'aws-call-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('writes identifiers as {id}, prefixes and names as they are', () => {
  expect(shapeOf('LIBITEM#9bea38267253492eafd3d1551e704811')).toBe('LIBITEM#{id}');
  expect(shapeOf('arn:aws:s3:::local-images/library/9bea38267253492eafd3d1551e704811/thumbnail.webp')).toBe(
    'arn:aws:s3:::local-images/library/{id}/thumbnail.webp',
  );
  expect(shapeOf('USER#smoke-user#PROJECT#0f1e2d3c4b5a69788796a5b4c3d2e1f0')).toBe('USER#smoke-user#PROJECT#{id}');
  // A test file's own table too: the calls of every file are one line.
  expect(shapeOf('arn:aws:dynamodb:us-east-1:000000000000:table/photo-commerce-e225141f901882f2/index/GSI1')).toBe(
    'arn:aws:dynamodb:us-east-1:000000000000:table/{id}/index/GSI1',
  );
  expect(shapeOf('APIKEYS')).toBe('APIKEYS');
});

it('records S3 requests and PutEvents of functions, once each, with the context IAM sees in AWS', () => {
  vi.stubEnv(AWS_CALL_LOG_DIR, dir);
  const { accessKeyId } = functionCredentials('get-library-item');
  const presigned = {
    accessKeyId,
    action: 's3:GetObject',
    resource: 'arn:aws:s3:::b/library/k',
    via: 'presigned-url' as const,
  };
  recordS3Request(presigned);
  recordS3Request(presigned);
  recordS3Request({ ...presigned, accessKeyId: TOOL_CREDENTIALS.accessKeyId });
  const bus = 'arn:aws:events:us-east-1:000000000000:event-bus/local';
  recordServiceCall({
    accessKeyId: functionCredentials('publish-events').accessKeyId,
    action: 'events:PutEvents',
    resource: bus,
    via: 'PutEvents',
  });
  // Recording off: nothing written anywhere.
  vi.stubEnv(AWS_CALL_LOG_DIR, '');
  recordS3Request({ ...presigned, resource: 'arn:aws:s3:::b/library/other' });
  vi.unstubAllEnvs();

  expect(readAwsCallLog(dir)).toEqual([
    { ...presigned, context: { 'aws:SecureTransport': 'true', 's3:TlsVersion': '1.2' } },
    {
      accessKeyId: functionCredentials('publish-events').accessKeyId,
      action: 'events:PutEvents',
      resource: bus,
      context: { 'aws:SecureTransport': 'true' },
      via: 'PutEvents',
    },
  ]);
});
