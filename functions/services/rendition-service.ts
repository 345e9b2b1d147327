/**
 * Makes the renditions of one committed library item and records them: read the record and the original,
 * render (renditions/render.ts), store both objects, then write the state where the item is read from. A
 * delivery that finds the state decided already does nothing, so duplicates and retries are harmless. An
 * image that cannot give renditions is Failed at once; any other failure (storage) is thrown for the queue
 * to retry, and becomes Failed on the last attempt.
 */
import { isDeepStrictEqual } from 'node:util';
import { config } from '../shared/config.ts';
import { logger } from '../shared/powertools.ts';
import { byteLimitReason, renditionObjectKey, type Rendition, type RenditionsState } from '../domain/renditions.ts';
import { decodingWithinLimit, renderRenditions, UnrenderableImage } from '../renditions/render.ts';
import * as store from '../store/rendition-store.ts';

/** `Failed`: the image cannot give renditions; `FailedByService`: storage or time-outs, after every attempt. */
export type RenditionOutcome = 'Ready' | 'Failed' | 'FailedByService' | 'AlreadyDecided' | 'ItemGone';

/** Times the state is written again after the item changed hands (claimed) between reading and writing it. */
const RECORD_ROUNDS = 5;
/** How long to wait for a claim half way (item taken, library entry not written yet) before trying again. */
const CLAIM_WAIT_MS = 500;

const failed = (reason: string, byService: boolean) => ({
  state: { status: 'Failed', reason } as RenditionsState,
  objectKeys: [],
  byService,
});

/** The item was deleted or decided between reading it and counting the start: it is read again. */
class ItemChanged extends Error {}

/**
 * Renders the item: the checks that need no decoder first (its size, the pixels its decoding would
 * produce), then the start is counted on its record (`attempt.counted`) and it is decoded.
 */
async function render(
  item: store.RenderedItem,
  attempt: { counted: boolean },
): Promise<{ state: RenditionsState; objectKeys: string[] }> {
  const tooLarge = byteLimitReason(item.size, config.renditionMaxBytes);
  if (tooLarge) throw new UnrenderableImage(tooLarge);
  const source = { ...item, bytes: await store.readOriginal(item.objectKey, item.size) };
  const decoding = decodingWithinLimit(source, config.renditionMaxPixels);
  if (!(await store.countRenditionStart(item.itemGuid))) throw new ItemChanged();
  attempt.counted = true;
  const rendered = await renderRenditions(source, decoding, {
    maxPixels: config.renditionMaxPixels,
    timeoutSeconds: config.renditionTimeoutSeconds,
    maxRssBytes: config.renditionMaxRssBytes,
  });
  const stored = await Promise.all(
    rendered.map(async ({ name, bytes, width, height, contentType }) => {
      const objectKey = renditionObjectKey(item.objectKey, name);
      await store.putRenditionObject(objectKey, bytes, contentType);
      return [name, { objectKey, width, height, contentType }] as [string, Rendition];
    }),
  );
  const byName = Object.fromEntries(stored);
  return {
    state: { status: 'Ready', thumbnail: byName.thumbnail!, preview: byName.preview! },
    objectKeys: stored.map(([, rendition]) => rendition.objectKey),
  };
}

/**
 * Makes and records the renditions of `itemGuid`. `finalAttempt`: a failure that is not the image's fault
 * is recorded as Failed instead of thrown.
 */
export async function makeRenditions(itemGuid: string, options: { finalAttempt: boolean }): Promise<RenditionOutcome> {
  let item = await store.getItemRecord(itemGuid);
  if (!item) return 'ItemGone';
  if (item.renditions) return 'AlreadyDecided';
  // Starts that never ended (the function crashed or ran out of time on this item, in a native decoder, say)
  // are counted on the record: after RENDITION_MAX_ATTEMPTS - 1 of them it is Failed without another try,
  // so a later delivery records it instead of dying on it again.
  const unfinished = item.renditionStarts ?? 0;
  let made: { state: RenditionsState; objectKeys: string[]; byService?: boolean };
  if (unfinished >= config.renditionMaxAttempts - 1)
    made = failed(
      `The renditions could not be made: ${unfinished} attempts stopped the function before it answered.`,
      true,
    );
  else {
    const attempt = { counted: false };
    try {
      made = await render(item, attempt);
    } catch (error) {
      if (error instanceof ItemChanged) return makeRenditions(itemGuid, options);
      if (!(error instanceof UnrenderableImage) && !options.finalAttempt) {
        if (attempt.counted) await store.countRenditionStart(itemGuid, -1); // it ended: the queue delivers again
        throw error;
      }
      if (!(error instanceof UnrenderableImage))
        logger.error('renditions failed for good', { itemGuid, error: error as Error });
      made =
        error instanceof UnrenderableImage
          ? failed(error.message, false)
          : failed(`The renditions could not be made after ${config.renditionMaxAttempts} attempts.`, true);
    }
  }
  for (let round = 0; round < RECORD_ROUNDS; round++) {
    const recorded = await store.recordRenditions(item, made.state, { keepReady: made.state.status === 'Failed' });
    if (recorded === 'written')
      return made.state.status === 'Ready' ? 'Ready' : made.byService ? 'FailedByService' : 'Failed';
    // A claim writes its library entries right after the items; a moment later the entry is there.
    if (recorded === 'entryMissing') await new Promise((resolve) => setTimeout(resolve, CLAIM_WAIT_MS));
    item = await store.getItemRecord(itemGuid);
    if (!item) {
      // Deleted while its renditions were made: what was stored for it goes too.
      await store.deleteRenditionObjects(made.objectKeys);
      return 'ItemGone';
    }
    if (item.renditions?.status === 'Ready' && made.state.status === 'Failed') return 'AlreadyDecided';
  }
  // A claim that died half way (no entry) or an item changing hands all along: the queue delivers again.
  throw new Error(`item ${itemGuid} changed while its renditions were recorded; retried`);
}

/** A library entry as the renditions command finds it: whose copy of which item, with what state. */
export interface LibraryEntryState {
  itemGuid: string;
  userId: string;
  renditions?: RenditionsState;
}

/**
 * Brings a library entry to the renditions state of its item record when they disagree (the operator's
 * repair, bin/renditions.ts): 'EntryRepaired', or 'EntryAgrees' when there is nothing to copy (they agree,
 * the record has no state yet, or it is another user's or gone). A copy whose condition fails met a
 * renditions write or an erasure meanwhile, and those change the entry in the same transaction: it agrees.
 */
export async function repairEntry(entry: LibraryEntryState): Promise<'EntryRepaired' | 'EntryAgrees'> {
  const item = await store.getItemRecord(entry.itemGuid);
  if (!item?.renditions || item.userId !== entry.userId || isDeepStrictEqual(item.renditions, entry.renditions))
    return 'EntryAgrees';
  const copied = await store.copyRenditionsToEntry({ ...item, userId: entry.userId, renditions: item.renditions });
  return copied ? 'EntryRepaired' : 'EntryAgrees';
}
