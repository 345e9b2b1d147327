/**
 * Browser-based uploads (POST of a multipart/form-data form to the bucket) served by the local S3's front
 * instead of s3rver: the form is parsed with busboy 1.x (s3rver's own POST parsing runs on busboy 0.3's
 * dicer, CVE-2022-24434, so it never sees a request), the policy is checked as S3 checks it
 * (lib/local/s3-post-policy.ts), and only then is the file stored: it waits in a temporary file while it
 * arrives, so a refused upload stores nothing.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { S3Error } from './s3-error.ts';
import { sizeRefusal, verifyPostPolicy, type PostFields, type VerifiedPolicy } from './s3-post-policy.ts';

const require = createRequire(import.meta.url);
/** s3rver's object model: it keeps the content headers and x-amz-meta-* of what it is given as metadata. */
const S3Object = require('s3rver/lib/models/object') as new (
  bucket: string,
  key: string,
  content: Readable,
  metadata: Record<string, string>,
) => unknown;

interface Store {
  putObject(object: unknown): Promise<{ md5: string; size: number }>;
}

/** The form's fields, then its file in a temporary file; the file is the last field S3 reads. */
interface ReceivedForm {
  fields: PostFields;
  policy: VerifiedPolicy;
  file: { path: string; size: number; contentType: string };
}

/** Largest form field S3 accepts before the file (its limit for the whole form is 20 KB). */
const MAX_FIELD_BYTES = 20 * 1024;

/**
 * Reads the form: fields, then the file, which is verified against the policy (with `report` told the
 * outcome once the signature holds) and written to `directory` only while within `content-length-range`.
 */
function receiveForm(
  request: IncomingMessage,
  bucket: string,
  directory: string,
  report: (policy: VerifiedPolicy, refusal: Error | undefined) => void,
): Promise<ReceivedForm> {
  return new Promise((resolve, reject) => {
    const fields: PostFields = new Map();
    let received: Promise<ReceivedForm> | undefined;
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, limits: { files: 1, fieldSize: MAX_FIELD_BYTES } });
    } catch {
      reject(
        new S3Error('MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.'),
      );
      return;
    }
    parser.on('field', (name, value) => {
      if (!received) fields.set(name.toLowerCase(), value);
    });
    parser.on('file', (_name, stream, info) => {
      if (received) {
        stream.resume();
        return;
      }
      received = storeFile(stream, info.filename ?? '', info.mimeType);
    });
    parser.on('error', () =>
      reject(
        new S3Error('MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.'),
      ),
    );
    parser.on('close', () => {
      if (!received) reject(new S3Error('InvalidArgument', 'POST requires exactly one file upload per request.'));
      else received.then(resolve, reject);
    });
    request.pipe(parser);

    async function storeFile(stream: Readable, filename: string, mimeType: string): Promise<ReceivedForm> {
      let policy: VerifiedPolicy;
      try {
        policy = verifyPostPolicy(bucket, fields, filename);
      } catch (error) {
        stream.resume();
        throw error;
      }
      if (policy.refusal) {
        report(policy, policy.refusal);
        stream.resume();
        throw policy.refusal;
      }
      const path = join(directory, `${randomBytes(8).toString('hex')}.incoming`);
      const max = policy.sizeRange?.max ?? Number.POSITIVE_INFINITY;
      let size = 0;
      // Past the range's maximum the bytes are counted, not kept: the upload is refused once it has arrived.
      const bounded = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(null, size <= max ? chunk : undefined);
        },
      });
      await pipeline(stream, bounded, createWriteStream(path));
      const refusal = sizeRefusal(policy.sizeRange, size);
      report(policy, refusal);
      if (refusal) {
        await rm(path, { force: true });
        throw refusal;
      }
      return { fields, policy, file: { path, size, contentType: fields.get('content-type') ?? mimeType } };
    }
  });
}

/** What S3 answers a stored POST: `success_action_status` 200 or 201 (with its XML), else 204. */
export interface PostAnswer {
  status: number;
  etag: string;
  location: string;
  body: unknown;
}

/**
 * Serves a POST upload to `bucket`: verifies its policy, reports the call, stores the file with the form's
 * content type and x-amz-meta-* fields, and answers as S3 does.
 */
export async function postObject(
  request: IncomingMessage,
  bucket: string,
  store: Store,
  directory: string,
  report: (policy: VerifiedPolicy, refusal: Error | undefined) => void,
): Promise<PostAnswer> {
  const { fields, policy, file } = await receiveForm(request, bucket, directory, report);
  try {
    const metadata = Object.fromEntries(fields);
    metadata['content-type'] = file.contentType;
    const { md5 } = await store.putObject(new S3Object(bucket, policy.key, createReadStream(file.path), metadata));
    const etag = `"${md5}"`;
    const location = `/${bucket}/${policy.key.split('/').map(encodeURIComponent).join('/')}`;
    const status = Number(fields.get('success_action_status'));
    if (status === 201)
      return {
        status,
        etag,
        location,
        body: { PostResponse: { Location: location, Bucket: bucket, Key: policy.key, ETag: etag } },
      };
    return { status: status === 200 ? 200 : 204, etag, location, body: '' };
  } finally {
    await rm(file.path, { force: true });
  }
}
