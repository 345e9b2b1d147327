/**
 * The IAM action and resource the local S3 reports for each request (lib/local/s3-calls.ts), as S3's API
 * reference names the permission of each operation the service and its tools use.
 */
import { expect, it } from 'vitest';
import { callsOf } from '../../lib/local/s3-calls.ts';

const bucket = 'images';
const object = (method: string, query: Record<string, string> = {}, copySource?: string) =>
  callsOf({ method, bucket, key: 'library/u/a', query, copySource });
const ofBucket = (method: string, query: Record<string, string> = {}) =>
  callsOf({ method, bucket, key: undefined, query });
const on = (action: string, resource = 'arn:aws:s3:::images/library/u/a') => [{ action, resource }];

it('names the object actions: put, part, multipart start and completion are s3:PutObject', () => {
  expect(object('PUT')).toEqual(on('s3:PutObject'));
  expect(object('PUT', { uploadId: '1', partNumber: '2' })).toEqual(on('s3:PutObject'));
  expect(object('POST', { uploads: '' })).toEqual(on('s3:PutObject'));
  expect(object('POST', { uploadId: '1' })).toEqual(on('s3:PutObject'));
  expect(object('GET')).toEqual(on('s3:GetObject'));
  expect(object('HEAD')).toEqual(on('s3:GetObject'));
  expect(object('DELETE')).toEqual(on('s3:DeleteObject'));
  expect(object('GET', { uploadId: '1' })).toEqual(on('s3:ListMultipartUploadParts'));
  expect(object('DELETE', { uploadId: '1' })).toEqual(on('s3:AbortMultipartUpload'));
});

it('names a copy as a put of the target and a get of its source', () => {
  expect(object('PUT', {}, 'images/uploads/x%20y?versionId=3')).toEqual([
    { action: 's3:PutObject', resource: 'arn:aws:s3:::images/library/u/a' },
    { action: 's3:GetObject', resource: 'arn:aws:s3:::images/uploads/x y' },
  ]);
});

it('names the bucket actions on the bucket ARN', () => {
  const arn = 'arn:aws:s3:::images';
  // A listing carries the condition keys IAM tests it with (the sweeper's grant is held to s3:prefix).
  expect(ofBucket('GET', { 'list-type': '2', prefix: 'library/u/', delimiter: '/' })).toEqual([
    { action: 's3:ListBucket', resource: arn, context: { 's3:prefix': 'library/u/', 's3:delimiter': '/' } },
  ]);
  expect(ofBucket('GET', { 'list-type': '2' })).toEqual(on('s3:ListBucket', arn));
  expect(ofBucket('HEAD')).toEqual(on('s3:ListBucket', arn));
  expect(ofBucket('PUT')).toEqual(on('s3:CreateBucket', arn));
  expect(ofBucket('PUT', { cors: '' })).toEqual(on('s3:PutBucketCORS', arn));
  expect(ofBucket('GET', { uploads: '' })).toEqual(on('s3:ListBucketMultipartUploads', arn));
});
