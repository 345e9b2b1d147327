/**
 * The multipart uploads of the local S3 (lib/local/s3-multipart.ts) on disk, apart from s3rver's own.
 *
 * An upload is a folder, `<directory>/<uploadId>/`: its record (`upload.json`: bucket, key, the object's
 * metadata) and, for each part number, the part's bytes (`<n>`) and record (`<n>.json`: its MD5, the ETag S3
 * gives a part, and size). A part is written to a temporary file and renamed, so a listing or a completion
 * never sees half a part. Completion moves the folder whole into the object (lib/local/s3-multipart-objects.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface UploadInfo {
  bucket: string;
  key: string;
  metadata: Record<string, string>;
  initiated: string;
}

export interface PartInfo {
  partNumber: number;
  etag: string;
  size: number;
  lastModified: string;
}

export function multipartUploads(directory: string) {
  // Only the id's hex digits: an id from a request never names a path outside `directory`.
  const uploadDir = (uploadId: string) => join(directory, uploadId.replace(/[^0-9a-f]/g, ''));

  return {
    /** The folder of an upload: its record and its parts. */
    uploadDir,

    /** Starts an upload of `bucket/key` and answers its id. */
    async create(bucket: string, key: string, metadata: Record<string, string>): Promise<string> {
      const uploadId = randomBytes(16).toString('hex');
      await mkdir(uploadDir(uploadId), { recursive: true });
      const info: UploadInfo = { bucket, key, metadata, initiated: new Date().toISOString() };
      await writeFile(join(uploadDir(uploadId), 'upload.json'), JSON.stringify(info));
      return uploadId;
    },

    /** The upload's record, or undefined when there is no such upload. */
    async find(uploadId: string): Promise<UploadInfo | undefined> {
      try {
        return JSON.parse(await readFile(join(uploadDir(uploadId), 'upload.json'), 'utf8')) as UploadInfo;
      } catch {
        return undefined;
      }
    },

    /** Stores `body` as part `partNumber` of the upload. */
    async putPart(uploadId: string, partNumber: number, body: Readable): Promise<PartInfo> {
      const path = join(uploadDir(uploadId), String(partNumber));
      const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
      const hash = createHash('md5');
      let size = 0;
      await pipeline(
        body,
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            size += chunk.length;
            done(null, chunk);
          },
        }),
        createWriteStream(temporary),
      );
      const part: PartInfo = { partNumber, etag: hash.digest('hex'), size, lastModified: new Date().toISOString() };
      // The last PUT of a part number wins, as in S3: bytes and record are each replaced in one rename.
      await rename(temporary, path);
      await writeFile(`${path}.json.tmp`, JSON.stringify(part));
      await rename(`${path}.json.tmp`, `${path}.json`);
      return part;
    },

    /** The upload's parts stored so far, by part number. */
    async parts(uploadId: string): Promise<PartInfo[]> {
      const names = await readdir(uploadDir(uploadId));
      const parts = await Promise.all(
        names
          .filter((name) => /^\d+\.json$/.test(name))
          .map(async (name) => JSON.parse(await readFile(join(uploadDir(uploadId), name), 'utf8')) as PartInfo),
      );
      return parts.sort((a, b) => a.partNumber - b.partNumber);
    },

    /** Removes the upload and its parts. */
    remove(uploadId: string): Promise<void> {
      return rm(uploadDir(uploadId), { recursive: true, force: true });
    },
  };
}
