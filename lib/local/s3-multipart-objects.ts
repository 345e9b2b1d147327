/**
 * Objects assembled by CompleteMultipartUpload (lib/local/s3-multipart.ts) without copying their bytes.
 *
 * S3 assembles a multipart object without sending its bytes anywhere; copying them into one file would
 * make the local completion cost a whole write of the file (seconds for 200 MB on a busy disk), which
 * S3's does not, and which the completion's benchmark would then measure. So the object stays in its part
 * files: s3rver gets a sparse file of the object's size (no data blocks: listings, HEAD and sizes are
 * right), its ETag and metadata, and a manifest beside the parts names them in order. s3rver's store is
 * wrapped so that:
 *
 * - a GET (whole or ranged) of such an object streams the parts' bytes instead of the sparse file's;
 * - a CopyObject from it first writes the bytes into the object file for real (then it is an ordinary object);
 * - a PutObject over it, a CopyObject onto it or a DeleteObject of it drops its parts and manifest.
 *
 * The manifest names the ETag it was made for: an object s3rver replaced by other means is never served
 * from stale parts.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';

interface S3ObjectLike {
  bucket: string;
  key: string;
  content: Readable | Buffer | null;
  metadata: Record<string, string>;
  range?: { start: number; end: number };
}

/** The part of s3rver's FilesystemStore that assembled objects touch. */
export interface FilesystemStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  getObject(bucket: string, key: string, options?: unknown): Promise<S3ObjectLike | null>;
  putObject(object: S3ObjectLike): Promise<unknown>;
  copyObject(
    srcBucket: string,
    srcKey: string,
    destBucket: string,
    destKey: string,
    metadata?: unknown,
  ): Promise<unknown>;
  deleteObject(bucket: string, key: string): Promise<unknown>;
}

interface Manifest {
  etag: string;
  parts: { file: string; size: number }[];
}

export function assembledObjects(directory: string, store: FilesystemStore) {
  const dirOf = (bucket: string, key: string) =>
    join(directory, 'objects', createHash('sha1').update(`${bucket}/${key}`).digest('hex'));
  const manifestOf = async (bucket: string, key: string): Promise<Manifest | undefined> =>
    readFile(join(dirOf(bucket, key), 'manifest.json'), 'utf8').then(
      (text) => JSON.parse(text) as Manifest,
      () => undefined,
    );
  const drop = (bucket: string, key: string) => rm(dirOf(bucket, key), { recursive: true, force: true });

  /** The parts' bytes from `start` to `end` (inclusive), in order. */
  function partsStream(manifest: Manifest, folder: string, start: number, end: number): Readable {
    async function* bytes() {
      let offset = 0;
      for (const part of manifest.parts) {
        const from = Math.max(start, offset);
        const to = Math.min(end, offset + part.size - 1);
        if (from <= to) yield* createReadStream(join(folder, part.file), { start: from - offset, end: to - offset });
        offset += part.size;
      }
    }
    return Readable.from(bytes(), { objectMode: false });
  }

  /** Writes an assembled object's bytes into its object file (before s3rver copies that file). */
  async function materialize(bucket: string, key: string): Promise<void> {
    const manifest = await manifestOf(bucket, key);
    if (!manifest) return;
    const objectPath = store.getResourcePath(bucket, key, 'object');
    const temporary = `${dirOf(bucket, key)}.materialized`;
    const out = await open(temporary, 'w');
    try {
      for (const part of manifest.parts) await out.write(await readFile(join(dirOf(bucket, key), part.file)));
    } finally {
      await out.close();
    }
    await rename(temporary, objectPath);
    await drop(bucket, key);
  }

  const original = {
    getObject: store.getObject.bind(store),
    putObject: store.putObject.bind(store),
    copyObject: store.copyObject.bind(store),
    deleteObject: store.deleteObject.bind(store),
  };
  store.getObject = async (bucket, key, options) => {
    const object = await original.getObject(bucket, key, options);
    const manifest = object?.content ? await manifestOf(bucket, key) : undefined;
    if (!object || !manifest || object.metadata.etag !== JSON.stringify(manifest.etag)) return object;
    (object.content as Readable).destroy();
    const size = manifest.parts.reduce((total, part) => total + part.size, 0);
    const { start, end } = object.range ?? { start: 0, end: size - 1 };
    object.content = partsStream(manifest, dirOf(bucket, key), start, end);
    return object;
  };
  store.putObject = async (object) => {
    await drop(object.bucket, object.key);
    return original.putObject(object);
  };
  store.copyObject = async (srcBucket, srcKey, destBucket, destKey, metadata) => {
    await materialize(srcBucket, srcKey);
    if (srcBucket !== destBucket || srcKey !== destKey) await drop(destBucket, destKey);
    return original.copyObject(srcBucket, srcKey, destBucket, destKey, metadata);
  };
  store.deleteObject = async (bucket, key) => {
    const deleted = await original.deleteObject(bucket, key);
    await drop(bucket, key);
    return deleted;
  };

  return {
    /**
     * Makes `bucket/key` the object of the part files in `partsDir` (moved, not copied), in the order of
     * `parts`, with `etag` and `metadata`. Written in s3rver's order (content, ETag, metadata last), so a
     * process killed half way leaves a torn object that storage.ts removes at the next start.
     */
    async assemble(
      bucket: string,
      key: string,
      partsDir: string,
      parts: Manifest['parts'],
      etag: string,
      metadata: Record<string, string>,
    ): Promise<void> {
      const folder = dirOf(bucket, key);
      await drop(bucket, key);
      await mkdir(dirname(folder), { recursive: true });
      await rename(partsDir, folder);
      await writeFile(join(folder, 'manifest.json'), JSON.stringify({ etag, parts } satisfies Manifest));
      const objectPath = store.getResourcePath(bucket, key, 'object');
      await mkdir(dirname(objectPath), { recursive: true });
      const sparse = `${folder}.sparse`;
      const handle = await open(sparse, 'w');
      await handle.truncate(parts.reduce((total, part) => total + part.size, 0));
      await handle.close();
      await rename(sparse, objectPath);
      await store.putMetadata(bucket, key, metadata, etag);
    },
  };
}
