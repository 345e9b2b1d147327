/**
 * Resumable uploads as a client makes them, over HTTP against a test service: the service's calls, and the
 * parts PUT straight to the local S3 through their presigned URLs, as a browser does.
 */
import { expect } from 'vitest';
import type { TestService } from './service.ts';
import { snapshotStore } from './store-snapshot.ts';

export interface Upload {
  ItemGuid: string;
  PartSize: number;
  PartCount: number;
  file: Buffer;
}

/** The declared fields of a start; the file's size is its own. */
export interface Declared {
  FileName?: string;
  ContentType?: string;
}

export const startRequest = (service: TestService, apiKey: string, size: number, declared: Declared = {}) =>
  service.request('POST', '/library/uploads', {
    apiKey,
    json: { FileName: 'photo.jpg', ContentType: 'image/jpeg', ...declared, FileSize: size },
  });

/** Starts an upload of `file`; it must be accepted. */
export async function startUpload(
  service: TestService,
  apiKey: string,
  file: Buffer,
  declared: Declared = {},
): Promise<Upload> {
  const answer = await startRequest(service, apiKey, file.length, declared);
  expect(answer.status, answer.text).toBe(200);
  return { ...answer.body, file };
}

export const partBytes = (upload: Upload, partNumber: number) =>
  upload.file.subarray((partNumber - 1) * upload.PartSize, partNumber * upload.PartSize);

export const signParts = (service: TestService, apiKey: string, upload: Upload, partNumbers: number[]) =>
  service.request('POST', `/library/uploads/${upload.ItemGuid}/parts`, { apiKey, json: { PartNumbers: partNumbers } });

/** Presigned part URLs by part number; the sign call must be accepted. */
export async function partUrls(
  service: TestService,
  apiKey: string,
  upload: Upload,
  partNumbers: number[],
): Promise<Map<number, string>> {
  const signed = await signParts(service, apiKey, upload, partNumbers);
  expect(signed.status, signed.text).toBe(200);
  return new Map(
    (signed.body.Parts as { PartNumber: number; Url: string }[]).map((part) => [part.PartNumber, part.Url]),
  );
}

/** PUTs the parts (all at once) to freshly signed URLs; answers their ETags by part number. */
export async function putParts(
  service: TestService,
  apiKey: string,
  upload: Upload,
  partNumbers: number[],
): Promise<Map<number, string>> {
  const urls = await partUrls(service, apiKey, upload, partNumbers);
  const etags = await Promise.all(
    [...urls].map(async ([partNumber, url]) => {
      const answer = await fetch(url, { method: 'PUT', body: partBytes(upload, partNumber) });
      expect(answer.status).toBe(200);
      return [partNumber, answer.headers.get('etag') as string] as const;
    }),
  );
  return new Map(etags);
}

export const completeUpload = (service: TestService, apiKey: string, upload: Upload, parts: [number, string][]) =>
  service.request('POST', `/library/uploads/${upload.ItemGuid}/complete`, {
    apiKey,
    json: { Parts: parts.map(([PartNumber, ETag]) => ({ PartNumber, ETag })) },
  });

/** The S3 multipart upload behind an upload, from its record. */
export async function s3UploadOf(service: TestService, upload: Upload): Promise<{ Key: string; UploadId: string }> {
  const record = (await snapshotStore(service)).items.get(`UPLOAD#${upload.ItemGuid}|MULTIPART`);
  return { Key: record?.objectKey?.S as string, UploadId: record?.uploadId?.S as string };
}
