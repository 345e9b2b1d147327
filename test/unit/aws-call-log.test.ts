/** The AWS call log (lib/local/aws-call-log.ts): what the stand-ins hand it, once per distinct call, functions only. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import {
  AWS_CALL_LOG_DIR,
  readAwsCallLog,
  recordEventBridgeCall,
  recordS3Request,
} from '../../lib/local/aws-call-log.ts';
import { functionCredentials, TOOL_CREDENTIALS } from '../../lib/local/function-credentials.ts';

const dir = mkdtempSync(join(tmpdir(), 'aws-call-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('records S3 requests and PutEvents of functions, once each, with the context IAM sees in AWS', () => {
  vi.stubEnv(AWS_CALL_LOG_DIR, dir);
  const { accessKeyId } = functionCredentials('get-library-item');
  const presigned = { accessKeyId, action: 's3:GetObject', resource: 'arn:aws:s3:::b/library/k', via: 'presigned-url' };
  recordS3Request(presigned);
  recordS3Request(presigned);
  recordS3Request({ ...presigned, accessKeyId: TOOL_CREDENTIALS.accessKeyId });
  const bus = 'arn:aws:events:us-east-1:000000000000:event-bus/local';
  recordEventBridgeCall({
    accessKeyId: functionCredentials('publish-events').accessKeyId,
    action: 'events:PutEvents',
    resource: bus,
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
