/**
 * Resumable uploads with Uppy: the options of `@uppy/aws-s3` (version 5, whose multipart option functions
 * these are) that send every file through the service's resumable upload endpoints, so a site adds them in
 * one line:
 *
 * ```ts
 * uppy.use(AwsS3, libraryUploads(client));
 * uppy.on('upload-success', (file, response) => show(response.body.ProductBuilderUrl));
 * ```
 *
 * Uppy cuts the file before it hears from the service, so the part size is the service's own rule (a pure
 * function of the size; the answer to the start call is checked against it). Part URLs are signed up to
 * 100 at a time and reused until shortly before they expire; a part whose PUT fails is retried by Uppy
 * with the same URL, and parts already stored are never sent again. Completing a very large file may
 * outlast API Gateway's 29 seconds: the completion is then asked again (it answers the same once done).
 * No dependency on Uppy: the types below are the shapes Uppy passes and expects.
 */
import type { PhotoCommerceClient } from './client.ts';
import { ApiError, ConnectionError } from './errors.ts';
import type { LibraryItemResult } from './types.ts';

const MIB = 1024 * 1024;
/** Part numbers per sign call (the service's limit). */
const SIGN_BATCH = 100;
/** A URL this close to its expiry is signed again rather than handed to a PUT. */
const EXPIRY_MARGIN_MS = 5 * 60 * 1000;
/** How long a completion is asked again while the service is still assembling and checking the file. */
const COMPLETE_PATIENCE_MS = 10 * 60 * 1000;

/** The service's part size for a file of `size` bytes: 5 MiB, or the next whole MiB that keeps 10,000 parts or fewer. */
export const partSizeFor = (size: number): number => Math.max(5 * MIB, Math.ceil(size / 10_000 / MIB) * MIB);

/** What the adapter reads of an Uppy file. */
export interface UppyFileLike {
  name?: string;
  type?: string;
  size: number | null;
}

interface UploadRef {
  uploadId?: string;
  key?: string;
  signal?: AbortSignal;
}

/** The `@uppy/aws-s3` options `libraryUploads` answers. */
export interface LibraryUploadOptions {
  /**
   * Every file, even a one-part one, goes in parts: only the completion adds it to the library and answers
   * its ProductBuilderUrl (Uppy's single-request upload has no completion step). A constant rather than a
   * function: with a function Uppy also asks for the single-request options, which would never be used.
   */
  shouldUseMultipart: true;
  getChunkSize: (file: { size: number }) => number;
  createMultipartUpload: (file: UppyFileLike) => Promise<{ uploadId: string; key: string }>;
  signPart: (
    file: UppyFileLike,
    part: { uploadId: string; key: string; partNumber: number; signal?: AbortSignal },
  ) => Promise<{ method: 'PUT'; url: string; expires: number }>;
  listParts: (file: UppyFileLike, upload: UploadRef) => Promise<{ PartNumber: number; Size: number; ETag: string }[]>;
  completeMultipartUpload: (
    file: UppyFileLike,
    upload: UploadRef & { parts: { PartNumber?: number; ETag?: string }[] },
  ) => Promise<LibraryItemResult & { location: string }>;
  abortMultipartUpload: (file: UppyFileLike, upload: UploadRef) => Promise<void>;
  /** Parts (and calls) in flight at once, over all files. */
  limit: number;
  /** Waits before each retry of a failed part PUT: patient enough to ride out a connection lost for a minute. */
  retryDelays: number[];
}

export interface LibraryUploadSettings {
  /** Parts in flight at once (default 4). */
  limit?: number;
  /** Uppy's waits between retries of a part (default: 0 s, 1 s, 3 s, 5 s, then 10 s six times). */
  retryDelays?: number[];
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** An answer that says "not yet": API Gateway's 504 while the function still works, the service's 409 UploadInProgress, no answer. */
const stillCompleting = (error: unknown): boolean =>
  (error instanceof ApiError && (error.status === 504 || error.code === 'UploadInProgress')) ||
  error instanceof ConnectionError;

const itemGuidOf = (upload: UploadRef): string => {
  if (!upload.uploadId) throw new TypeError('Uppy gave no uploadId');
  return upload.uploadId;
};

type Signed = { url: string; expiresAt: number };
type State = { partCount: number; urls: Map<number, Promise<Signed>> };

export function libraryUploads(
  client: PhotoCommerceClient,
  settings: LibraryUploadSettings = {},
): LibraryUploadOptions {
  /** Per upload: its part count and the URLs signed so far. */
  const uploads = new Map<string, State>();

  const stateOf = async (itemGuid: string, signal?: AbortSignal) => {
    let state = uploads.get(itemGuid);
    if (!state) {
      // An upload Uppy restored (or another tab started): its part count from the service.
      const status = await client.library.getResumableUpload(itemGuid, signal ? { signal } : {});
      state = uploads.get(itemGuid) ?? { partCount: status.PartCount, urls: new Map() };
      uploads.set(itemGuid, state);
    }
    return state;
  };

  /** Signs `first` and the next parts not signed yet, up to 100, in one call; answers `first`'s URL. */
  function signFrom(itemGuid: string, state: State, first: number, signal?: AbortSignal): Promise<Signed> {
    const partNumbers = [first];
    for (
      let next = first + 1;
      next <= state.partCount && partNumbers.length < SIGN_BATCH && !state.urls.has(next);
      next++
    )
      partNumbers.push(next);
    const batch = client.library.signUploadParts(itemGuid, partNumbers, signal ? { signal } : {});
    for (const partNumber of partNumbers) {
      const url = batch.then(({ Parts }) => {
        const signed = Parts.find((part) => part.PartNumber === partNumber);
        if (!signed) throw new TypeError(`the service signed no URL for part ${partNumber}`);
        return { url: signed.Url, expiresAt: signed.ExpiresDateUtc.getTime() };
      });
      // A failed batch is forgotten, so the next ask signs again.
      url.catch(() => state.urls.get(partNumber) === url && state.urls.delete(partNumber));
      state.urls.set(partNumber, url);
    }
    return state.urls.get(first) as Promise<Signed>;
  }

  return {
    limit: settings.limit ?? 4,
    retryDelays: settings.retryDelays ?? [0, 1000, 3000, 5000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000],
    shouldUseMultipart: true,
    getChunkSize: (file) => partSizeFor(file.size),

    async createMultipartUpload(file) {
      const size = file.size ?? 0;
      const upload = await client.library.startResumableUpload({
        FileName: file.name || 'image',
        ContentType: file.type || 'application/octet-stream',
        FileSize: size,
      });
      if (upload.PartSize !== partSizeFor(size))
        throw new TypeError(
          `the service cuts ${size} bytes into parts of ${upload.PartSize}, Uppy into ${partSizeFor(size)}`,
        );
      uploads.set(upload.ItemGuid, { partCount: upload.PartCount, urls: new Map() });
      return { uploadId: upload.ItemGuid, key: upload.ItemGuid };
    },

    async signPart(_file, { uploadId, partNumber, signal }) {
      const state = await stateOf(uploadId, signal);
      const cached = await state.urls.get(partNumber)?.catch(() => undefined);
      const { url, expiresAt } =
        cached && cached.expiresAt - Date.now() > EXPIRY_MARGIN_MS
          ? cached
          : await signFrom(uploadId, state, partNumber, signal);
      return { method: 'PUT', url, expires: Math.max(60, Math.floor((expiresAt - Date.now()) / 1000)) };
    },

    async listParts(_file, upload) {
      const itemGuid = itemGuidOf(upload);
      const status = await client.library.getResumableUpload(itemGuid, upload.signal ? { signal: upload.signal } : {});
      if (!uploads.has(itemGuid)) uploads.set(itemGuid, { partCount: status.PartCount, urls: new Map() });
      return status.Parts.map((part) => ({ PartNumber: part.PartNumber, Size: part.Size, ETag: part.ETag }));
    },

    async completeMultipartUpload(_file, upload) {
      const itemGuid = itemGuidOf(upload);
      const Parts = upload.parts.map((part) => ({ PartNumber: part.PartNumber ?? 0, ETag: part.ETag ?? '' }));
      const giveUpAt = Date.now() + COMPLETE_PATIENCE_MS;
      for (;;) {
        try {
          const result = await client.library.completeResumableUpload(
            itemGuid,
            { Parts },
            upload.signal ? { signal: upload.signal } : {},
          );
          uploads.delete(itemGuid);
          // `location` is what Uppy shows as the upload's URL: the product builder page of the photo.
          return { ...result, location: result.ProductBuilderUrl };
        } catch (error) {
          if (!stillCompleting(error) || Date.now() > giveUpAt) throw error;
          await sleep(error instanceof ApiError ? (error.retryAfterMs ?? 5000) : 5000, upload.signal);
        }
      }
    },

    async abortMultipartUpload(_file, upload) {
      const itemGuid = itemGuidOf(upload);
      uploads.delete(itemGuid);
      await client.library.abortResumableUpload(itemGuid, upload.signal ? { signal: upload.signal } : {});
    },
  };
}
