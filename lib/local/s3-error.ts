/**
 * S3's error answers in the local S3: s3rver's own error class, which its error handler renders as S3's XML
 * error with the status S3 gives the code. s3rver does not export it, so it is taken from its files; the
 * multipart stand-in's refusals then look exactly like s3rver's.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** An S3 error: S3's code (NoSuchUpload, InvalidPart, ...) and its message. */
export const S3Error = require('s3rver/lib/models/error') as new (code: string, message: string) => Error;
