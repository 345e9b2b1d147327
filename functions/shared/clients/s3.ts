/**
 * The S3 client, created once per execution environment. Only the library handlers import it (see
 * clients/dynamodb.ts for why each service has its own module). The endpoint points at s3rver when
 * S3_ENDPOINT is set.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../config.ts';

const endpoint = config.s3Endpoint;

/** Marked pure so that a bundle that imports the library store but never touches the bucket leaves the client out. */
export const s3 = /* @__PURE__ */ new S3Client(endpoint ? { endpoint, forcePathStyle: true } : {});
