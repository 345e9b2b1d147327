/**
 * Removes objects nothing refers to any more, when the record naming them expires: what a push, pull,
 * large-file or resumable upload stored (a resumable one's parts too) when it never reached its commit (the
 * process died, the commit failed, the client gave up), an
 * hour after it began, so the request is long over; and the object of an erased item, should the erasure
 * not have deleted it itself. Records need no sweeping: a request's records are created in its commit's
 * one transaction, and an erasure deletes an item's records in one. When a checkout whose artwork hold ended
 * expires, or the end of the unpaid holds an erasure waits for, the erasures that waited for them (and for
 * no other live hold) are released; an erased item's objects include its original held for the lab.
 */
import * as library from '../store/library-store.ts';
import * as objects from '../store/image-object-store.ts';
import { abortS3Upload } from '../store/multipart-object-store.ts';
import { imageObjectKeys } from '../domain/renditions.ts';
import type { Leftover } from '../domain/library.ts';
import { releaseAtUnpaidHoldsEnd, releaseEndedHold } from './artwork-hold-service.ts';

export interface SweepOutcome {
  /** `committed`: the request's images are in the library and nothing is removed. */
  kind: 'committed' | 'uncommitted' | 'erased' | 'released';
  /** Library objects removed (`released`: deferred erasures released, their objects go when their intents expire). */
  objectsRemoved: number;
}

export async function sweepLeftover(leftover: Leftover): Promise<SweepOutcome> {
  if ('endedHold' in leftover) return { kind: 'released', objectsRemoved: await releaseEndedHold(leftover.endedHold) };
  if ('unpaidHoldsEnd' in leftover)
    return { kind: 'released', objectsRemoved: await releaseAtUnpaidHoldsEnd(leftover.unpaidHoldsEnd) };
  if ('erasedObjectKey' in leftover) {
    const keys = imageObjectKeys(leftover.erasedObjectKey);
    await Promise.all(keys.map((key) => objects.deleteImageObject(key)));
    return { kind: 'erased', objectsRemoved: keys.length };
  }
  const { anonymousUserId, stagingKey } = leftover;
  if (await library.anonymousUserExists(anonymousUserId)) return { kind: 'committed', objectsRemoved: 0 };
  // Parts first: a completion racing the sweep cannot assemble an object after the listing below.
  if (leftover.multipartUpload) await abortS3Upload(leftover.multipartUpload);
  const itemGuids = await objects.listLibraryObjects(anonymousUserId);
  await Promise.all([
    ...itemGuids.map((itemGuid) => objects.deleteImageObject(objects.libraryObjectKey(anonymousUserId, itemGuid))),
    ...(stagingKey !== undefined ? [objects.deleteImageObject(stagingKey)] : []),
  ]);
  return { kind: 'uncommitted', objectsRemoved: itemGuids.length };
}
