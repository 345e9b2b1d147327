/**
 * The S3 client, created once per execution environment. Only the library handlers import it (see
 * clients/dynamodb.ts for why each service has its own module). The endpoint points at s3rver when
 * S3_ENDPOINT is set.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../config.ts';

const endpoint = config.s3Endpoint;

/**
 * Checksums only where S3 requires them: the image upload sends its own MD5 as Content-MD5 and asks for
 * CRC32 on multipart parts itself (store/s3-stream-upload.ts), so a pushed image is hashed once, not
 * three times. Marked pure so that a bundle that imports the library store but never touches the bucket
 * leaves the client out.
 */
export const s3 = /* @__PURE__ */ new S3Client({ requestChecksumCalculation: 'WHEN_REQUIRED', ...(endpoint ? { endpoint, forcePathStyle: true } : {}) });
