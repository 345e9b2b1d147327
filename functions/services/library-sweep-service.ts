/**
 * Removes what a push, pull, large-file or resumable upload left behind when it never reached its commit
 * (the process died, a rollback delete failed, the client gave up): its item records, builder link,
 * objects and a resumable upload's parts. Called when the
 * request's intent (or pending upload) expires, an hour after it began, so the request is long over.
 */
import * as library from '../store/library-store.ts';
import * as objects from '../store/image-object-store.ts';
import { abortS3Upload } from '../store/multipart-object-store.ts';
import type { Leftover } from '../domain/library.ts';

export interface SweepOutcome {
  /** The request committed: its images are in the library and nothing is removed. */
  committed: boolean;
  /** Library objects (and their item records) removed. */
  itemsRemoved: number;
}

export async function sweepLeftover(leftover: Leftover): Promise<SweepOutcome> {
  const { anonymousUserId, token, stagingKey, multipartUpload } = leftover;
  if (await library.anonymousUserExists(anonymousUserId)) return { committed: true, itemsRemoved: 0 };
  // Parts first: a completion racing the sweep cannot assemble an object after the listing below.
  if (multipartUpload) await abortS3Upload(multipartUpload);
  const itemGuids = await objects.listLibraryObjects(anonymousUserId);
  // Records before objects: an item record exists only while its object does, so a sweep that fails half
  // way (and is retried from the stream) finds the rest by listing again.
  await Promise.all([
    ...itemGuids.map((itemGuid) => library.deleteItem(itemGuid)),
    ...(token !== undefined ? [library.deleteBuilderLink(token)] : []),
  ]);
  await Promise.all([
    ...itemGuids.map((itemGuid) => objects.deleteImageObject(objects.libraryObjectKey(anonymousUserId, itemGuid))),
    ...(stagingKey !== undefined ? [objects.deleteImageObject(stagingKey)] : []),
  ]);
  return { committed: false, itemsRemoved: itemGuids.length };
}
