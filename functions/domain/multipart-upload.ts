/**
 * The rules of a resumable (multipart) upload, without AWS: how a file is cut into parts, what a client
 * may ask of an upload in each state, and whether the parts it names for completion are the file.
 *
 * An upload is `open` until one of: a complete call decides it (a `result`, then committed to the library),
 * refuses it (`refused`: the bytes are no image; nothing is kept), or a DELETE aborts it (`aborted`).
 */
import { badRequest } from '../shared/errors.ts';

const MIB = 1024 * 1024;
/** S3's smallest part (all but the last) and most parts per upload. */
export const MIN_PART_SIZE = 5 * MIB;
export const MAX_PART_COUNT = 10_000;
/** Part numbers one sign call may ask for. */
export const MAX_PARTS_PER_SIGN = 100;

export interface PartPlan {
  partSize: number;
  partCount: number;
}

/**
 * Parts of `fileSize` bytes: 5 MiB, or the next whole MiB that keeps the count at 10,000 or fewer. A pure
 * function of the size, so a client that must cut the file before it hears the answer (Uppy asks for the
 * chunk size first) cuts it the same way.
 */
export function partPlan(fileSize: number): PartPlan {
  const partSize = Math.max(MIN_PART_SIZE, Math.ceil(fileSize / MAX_PART_COUNT / MIB) * MIB);
  return { partSize, partCount: Math.max(1, Math.ceil(fileSize / partSize)) };
}

/** The size part `partNumber` (1-based) must have: the plan's part size, the rest for the last. */
export const expectedPartSize = (fileSize: number, plan: PartPlan, partNumber: number): number =>
  partNumber < plan.partCount ? plan.partSize : fileSize - plan.partSize * (plan.partCount - 1);

export type UploadState = 'open' | 'refused' | 'aborted';

export interface MultipartUploadState {
  apiKeyId: string;
  state: UploadState;
  expiresAt: number;
  /** Present once a complete call decided the upload. */
  result?: unknown;
}

/** Stored parts as S3 lists them. */
export interface StoredPart {
  partNumber: number;
  size: number;
  etag: string;
}

export interface NamedPart {
  partNumber: number;
  etag: string;
}

/** S3 quotes ETags; clients pass them quoted or not (a browser reads the header with its quotes). */
export const bareETag = (etag: string): string => etag.trim().replace(/^W\//, '').replace(/^"|"$/g, '');

/**
 * How long after it expired a decided upload still answers its outcome to a repeated complete call: until
 * the record may be swept (SWEEP_AFTER_MS after expiry), less a margin that covers a running completion.
 */
const FINISH_AFTER_EXPIRY_MS = 30 * 60 * 1000;

/**
 * What a call of `apiKeyId` at `now` may do with the upload it read: `notFound` (none, another key's,
 * aborted or expired), `decided` (a complete call decided it: answer that), `refused` (the bytes were no
 * image), `open` (parts may be signed, listed, completed or aborted).
 */
export function uploadStep(
  upload: MultipartUploadState | undefined,
  apiKeyId: string,
  now: number,
): 'notFound' | 'decided' | 'refused' | 'open' {
  if (!upload || upload.apiKeyId !== apiKeyId || upload.state === 'aborted') return 'notFound';
  if (upload.result !== undefined) return now < upload.expiresAt + FINISH_AFTER_EXPIRY_MS ? 'decided' : 'notFound';
  if (upload.state === 'refused') return 'refused';
  return upload.expiresAt > now ? 'open' : 'notFound';
}

const invalidPart = (partNumber: number, message: string) =>
  badRequest('InvalidPart', `Part ${partNumber}: ${message}`, { PartNumber: partNumber });

/** Part numbers a sign call may ask for: each within the plan, none twice. */
export function checkPartNumbers(partNumbers: readonly number[], plan: PartPlan): void {
  const seen = new Set<number>();
  for (const partNumber of partNumbers) {
    if (partNumber > plan.partCount)
      throw invalidPart(partNumber, `this upload has ${plan.partCount} part${plan.partCount === 1 ? '' : 's'}.`);
    if (seen.has(partNumber)) throw invalidPart(partNumber, 'asked for twice.');
    seen.add(partNumber);
  }
}

/**
 * The parts to complete with, in order, when the client's list names every part of the plan once, each
 * with the ETag of the part S3 holds, and every stored part has its planned size; else a 400 naming the
 * first part that is missing or wrong (a part of another upload has another ETag).
 */
export function partsToComplete(
  named: readonly NamedPart[],
  stored: readonly StoredPart[],
  fileSize: number,
  plan: PartPlan,
): StoredPart[] {
  checkPartNumbers(
    named.map((part) => part.partNumber),
    plan,
  );
  const etags = new Map(named.map((part) => [part.partNumber, bareETag(part.etag)]));
  const held = new Map(stored.map((part) => [part.partNumber, part]));
  const parts: StoredPart[] = [];
  for (let partNumber = 1; partNumber <= plan.partCount; partNumber++) {
    const etag = etags.get(partNumber);
    const part = held.get(partNumber);
    if (etag === undefined) throw invalidPart(partNumber, 'missing from the list of parts.');
    if (part === undefined) throw invalidPart(partNumber, 'has not been uploaded.');
    if (bareETag(part.etag) !== etag)
      throw invalidPart(partNumber, `ETag ${etag} is not the ETag of the part uploaded (${bareETag(part.etag)}).`);
    const size = expectedPartSize(fileSize, plan, partNumber);
    if (part.size !== size) throw invalidPart(partNumber, `${part.size} bytes uploaded, ${size} expected.`);
    parts.push(part);
  }
  return parts;
}
