/**
 * The S3 client, created once per execution environment. Only the library handlers import it (see
 * clients/dynamodb.ts for why each service has its own module). The endpoint points at s3rver when
 * S3_ENDPOINT is set.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../config.ts';
import { traced } from '../tracing.ts';

const endpoint = config.s3Endpoint;

/**
 * Checksums only where S3 requires them: the image upload chooses its own (Content-MD5 when it has the
 * MD5, else CRC32, on every PutObject and part; store/s3-stream-upload.ts), so a pushed image is hashed
 * once, not three times. No `Expect: 100-continue`: the SDK sends it for bodies of 2 MB and more, and then
 * opens a new connection without keep-alive for each of them (a TCP and TLS handshake per image and per
 * part); the service's requests are signed and sized right, so there is no refusal for it to save a body
 * from. Marked pure so that a bundle that imports the library store but never touches the bucket leaves
 * the client out.
 */
export const s3 = /* @__PURE__ */ traced(
  /* @__PURE__ */ new S3Client(
    // Plain object literals, no spread: esbuild keeps a spread as a possible side effect, and with it the client.
    endpoint
      ? { requestChecksumCalculation: 'WHEN_REQUIRED', expectContinueHeader: false, endpoint, forcePathStyle: true }
      : { requestChecksumCalculation: 'WHEN_REQUIRED', expectContinueHeader: false },
  ),
);
