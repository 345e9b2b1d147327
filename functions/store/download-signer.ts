/**
 * Presigned GETs of many objects of one bucket at once. The SDK's getSignedUrl runs, for every URL, the
 * whole command pipeline (endpoint rules, a new signer whose signing-key cache starts empty, serialization):
 * about 0.3 ms each warm, and far more in a cold function, where GET /builder/{token} signs up to 100. Here
 * the endpoint is resolved once per bucket and one signer (the SDK's own S3RequestPresigner, which caches
 * the day's signing key) signs a plain request per object, as getSignedUrl's last step does.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { formatUrl } from '@aws-sdk/core/util';
import { getEndpointFromInstructions } from '@smithy/core/endpoints';
import { HttpRequest } from '@smithy/core/protocols';

export interface Download {
  objectKey: string;
  /** Answered as the object's Content-Type (`response-content-type`). */
  contentType: string;
}

/** A path segment as S3 signs and reads it (RFC 3986 unreserved characters kept). */
const encodeSegment = (segment: string): string => encodeURIComponent(segment).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

export async function presignDownloads(s3: S3Client, bucket: string, downloads: readonly Download[], expiresIn: number): Promise<string[]> {
  if (downloads.length === 0) return [];
  // The bucket decides the endpoint (path or virtual-hosted style, region); the key does not.
  const endpoint = await getEndpointFromInstructions({ Bucket: bucket, Key: 'key' }, GetObjectCommand, s3.config);
  const authScheme = endpoint.properties?.authSchemes?.[0] as { signingName?: string; signingRegion?: string } | undefined;
  const region = authScheme?.signingRegion ?? (await s3.config.region());
  const presigner = new S3RequestPresigner({ ...s3.config, ...(authScheme?.signingName ? { signingName: authScheme.signingName } : {}), region: async () => region });
  const { protocol, hostname, port, pathname } = endpoint.url;
  const base = pathname.replace(/\/+$/, '');
  return Promise.all(
    downloads.map(async ({ objectKey, contentType }) => {
      const request = new HttpRequest({
        method: 'GET',
        protocol,
        hostname,
        ...(port ? { port: Number(port) } : {}),
        path: `${base}/${objectKey.split('/').map(encodeSegment).join('/')}`,
        query: { 'response-content-type': contentType, 'x-id': 'GetObject' },
        headers: {},
      });
      return formatUrl(await presigner.presign(request, { expiresIn, signingRegion: region }));
    }),
  );
}
