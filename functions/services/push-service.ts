/**
 * Push: images sent in the request body as multipart/form-data go into the library (library-service.ts
 * stores them, all or nothing). Apart from library-service.ts so that only the push handlers carry the
 * multipart parser.
 */
import { badRequest, payloadTooLarge } from '../shared/errors.ts';
import { config } from '../shared/config.ts';
import { bodyBytes, decodeBody, type MultipartPart } from '../library/multipart.ts';
import { bufferedMultipartParts } from '../library/multipart-buffered.ts';
import { largeFileHint } from '../library/image-errors.ts';
import { ingestImages, type ImageSource } from './library-service.ts';
import type { IngestResult } from './ingest-commit.ts';

/** 413 for a push body over the cap, pointing to the large-file path. */
const pushTooLarge = (bodyBytes: number) =>
  payloadTooLarge(
    `The request body is ${bodyBytes} bytes; push accepts at most ${config.pushMaxBytes} bytes per request. ${largeFileHint()}`,
  );

export interface MultipartRequest {
  /** As API Gateway passes it: base64 when the content type is a binary media type. */
  body: string | null;
  isBase64Encoded: boolean;
  contentType: string | undefined;
}

/** Single push: the form is exactly one part, named `image`. */
async function* onlyImagePart(parts: AsyncIterable<MultipartPart>): AsyncGenerator<MultipartPart> {
  let seen = 0;
  for await (const part of parts) {
    if (seen++ > 0)
      throw badRequest(
        'UnexpectedPart',
        'Push takes one part, named "image"; send several images to POST /library/multi/push.',
      );
    if (part.fieldName !== 'image')
      throw badRequest(
        'MissingImagePart',
        `The form has no part named "image" (found "${part.fieldName}"); POST /library/multi/push takes parts of any name.`,
      );
    yield part;
  }
  if (seen === 0) throw badRequest('MissingImagePart', 'The form has no part named "image".');
}

async function* imageSources(parts: AsyncIterable<MultipartPart>): AsyncGenerator<ImageSource> {
  for await (const part of parts)
    yield {
      index: part.index,
      open: () => part.stream,
      ...(part.fileName !== undefined ? { declaredName: part.fileName } : {}),
    };
}

/**
 * Push: streams the multipart body's parts into the library. `single`: one part named `image`; `multi`:
 * every part is an image, whatever its field name. The body is capped (PUSH_MAX_BYTES) so that it fits
 * Lambda's synchronous payload in base64; above it the answer is a 413 pointing to the large-file upload.
 */
export async function pushImages(
  owner: { apiKeyId: string },
  request: MultipartRequest,
  shape: 'single' | 'multi',
): Promise<IngestResult> {
  const maxBytes = config.pushMaxBytes;
  const size = bodyBytes(request.body, request.isBase64Encoded);
  if (size > maxBytes) throw pushTooLarge(size);
  const decoded = decodeBody(request.body, request.isBase64Encoded, maxBytes);
  try {
    const parts = bufferedMultipartParts(decoded.bytes, request.contentType, {
      maxParts: config.libraryMaxItems,
      maxPartBytes: maxBytes,
    });
    // Every upload of the request has ended when ingestImages settles, so the buffer is free again.
    return await ingestImages(owner, imageSources(shape === 'single' ? onlyImagePart(parts) : parts), { maxBytes });
  } finally {
    decoded.release();
  }
}
