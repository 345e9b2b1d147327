/**
 * S3's error answers in the local S3: s3rver's own error class, which its error handler renders as S3's XML
 * error with the status S3 gives the code. s3rver does not export it, so it is taken from its files; the
 * multipart stand-in's and the front's refusals then look exactly like s3rver's.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** An S3 error: S3's code (NoSuchUpload, InvalidPart, ...), its message and extra elements of its XML. */
export const S3Error = require('s3rver/lib/models/error') as new (
  code: string,
  message: string,
  detail?: Record<string, string>,
) => Error & { status: number };

/** S3's status for codes s3rver's table lacks (it would answer them 500) or gives another status. */
const STATUS_S3_GIVES: Record<string, number> = {
  XAmzContentSHA256Mismatch: 400,
  XAmzContentChecksumMismatch: 400,
  AccessForbidden: 403,
  BadRequest: 400,
};

/** An S3 error with S3's status, also for the codes s3rver does not know or answers with another status. */
export function s3Error(code: string, message: string, detail?: Record<string, string>): Error {
  const error = new S3Error(code, message, detail);
  error.status = STATUS_S3_GIVES[code] ?? error.status;
  return error;
}
