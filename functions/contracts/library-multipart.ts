/**
 * Resumable (multipart) upload schemas: start, sign parts, read what S3 holds, complete, abort. Completion
 * answers as a push does (contracts/library.ts).
 */
import * as z from 'zod/mini';
import { MAX_PART_COUNT, MAX_PARTS_PER_SIGN, MIN_PART_SIZE, type StoredPart } from '../domain/multipart-upload.ts';
import { formatDate } from '../shared/dates.ts';
import {
  GuidOut,
  HeaderText,
  IntegerOut,
  listOf,
  nameSchemas,
  requestSchemas,
  responseSchemas,
  WireDateOut,
} from './common.ts';
import { imageErrors, LibraryItemPath, LibraryItemResultOut } from './library.ts';

const PartNumber = z
  .int()
  .check(
    z.gte(1, 'must be 1 or more'),
    z.lte(MAX_PART_COUNT, `must be ${MAX_PART_COUNT} or less`),
    z.meta({ description: "1 to the upload's PartCount", example: 1 }),
  );
/** A part number in an answer. */
const PartNumberOut = IntegerOut({ minimum: 1, maximum: MAX_PART_COUNT, example: 1 });

export const StartUploadInput = z.object({
  FileName: z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(255, 'must be at most 255 characters')),
  ContentType: HeaderText(255).check(
    z.meta({
      description:
        'As declared (printable ASCII: it is sent to S3 as a header); the stored type is sniffed from the bytes at completion',
      example: 'image/jpeg',
    }),
  ),
  FileSize: z
    .int()
    .check(
      z.gte(1, 'must be at least 1 byte'),
      z.meta({ description: 'Bytes, 1 to MULTIPART_MAX_BYTES (default 2 GiB; more is 413)', example: 41943040 }),
    ),
});

export const SignPartsInput = z.object({ PartNumbers: listOf(PartNumber, MAX_PARTS_PER_SIGN, 'part') });

const CompletedPart = z.object({
  PartNumber,
  ETag: z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(200, 'must be at most 200 characters'),
      z.meta({ description: "The ETag header of the part's PUT answer, quoted or not" }),
    ),
});

export const CompleteUploadInput = z.object({
  Parts: listOf(CompletedPart, MAX_PART_COUNT, 'part', 'Every part, 1 to PartCount, each once, in any order'),
});

export const UploadOut = z.object({
  ItemGuid: GuidOut,
  PartSize: IntegerOut({
    minimum: MIN_PART_SIZE,
    example: MIN_PART_SIZE,
    description: 'Bytes of every part but the last (at least 5 MiB)',
  }),
  PartCount: IntegerOut({ minimum: 1, maximum: MAX_PART_COUNT, example: 8, description: 'Parts of the file' }),
  ExpiresDateUtc: WireDateOut,
});

const SignedPartOut = z.object({
  PartNumber: PartNumberOut,
  Url: z.url().check(z.meta({ description: "PUT the part's bytes here; keep the answer's ETag header" })),
  ExpiresDateUtc: WireDateOut,
});

export const SignedPartsOut = z.object({ Parts: z.array(SignedPartOut) });

const StoredPartOut = z.object({
  PartNumber: PartNumberOut,
  Size: IntegerOut({ minimum: 1, example: MIN_PART_SIZE, description: 'Bytes' }),
  ETag: z.string(),
});

export const UploadStatusOut = z.object({
  ...UploadOut.shape,
  Parts: z.array(StoredPartOut).check(z.meta({ description: 'The parts S3 holds, in part number order' })),
});

export const AbortedUploadOut = z.object({ ItemGuid: GuidOut, Aborted: z.literal(true) });

/** What the wire form of an upload shows. */
interface UploadView {
  itemGuid: string;
  partSize: number;
  partCount: number;
  expiresAt: number;
}

export const toUploadOut = (upload: UploadView): z.infer<typeof UploadOut> => ({
  ItemGuid: upload.itemGuid,
  PartSize: upload.partSize,
  PartCount: upload.partCount,
  ExpiresDateUtc: formatDate(upload.expiresAt),
});

export const toSignedPartsOut = (
  parts: readonly { partNumber: number; url: string; expiresAt: number }[],
): z.infer<typeof SignedPartsOut> => ({
  Parts: parts.map((part) => ({
    PartNumber: part.partNumber,
    Url: part.url,
    ExpiresDateUtc: formatDate(part.expiresAt),
  })),
});

export const toUploadStatusOut = (
  upload: UploadView,
  parts: readonly StoredPart[],
): z.infer<typeof UploadStatusOut> => ({
  ...toUploadOut(upload),
  Parts: [...parts]
    .sort((a, b) => a.partNumber - b.partNumber)
    .map((part) => ({ PartNumber: part.partNumber, Size: part.size, ETag: part.etag })),
});

const notFound = { 404: ['UploadNotFound'] } as const;
const completed = { 409: ['UploadCompleted'] } as const;

export const libraryMultipartContracts = {
  start: {
    principal: 'library',
    body: StartUploadInput,
    response: UploadOut,
    errors: { 409: ['UploadQuotaExceeded'], 413: ['PayloadTooLarge'] },
  },
  signParts: {
    principal: 'library',
    path: LibraryItemPath,
    body: SignPartsInput,
    response: SignedPartsOut,
    errors: { ...notFound, ...completed, 400: ['InvalidPart'] },
  },
  status: {
    principal: 'library',
    path: LibraryItemPath,
    response: UploadStatusOut,
    errors: { ...notFound, ...completed },
  },
  complete: {
    principal: 'library',
    path: LibraryItemPath,
    body: CompleteUploadInput,
    response: LibraryItemResultOut,
    errors: { ...imageErrors, ...notFound, 400: ['InvalidPart'], 409: ['UploadInProgress'] },
  },
  abort: {
    principal: 'library',
    path: LibraryItemPath,
    response: AbortedUploadOut,
    errors: { ...notFound, 409: ['UploadCompleted', 'UploadInProgress'] },
  },
} as const;

nameSchemas(requestSchemas, {
  StartUploadInput,
  SignPartsInput,
  CompleteUploadInput,
  CompletedPart,
});
nameSchemas(responseSchemas, {
  ResumableUpload: UploadOut,
  SignedParts: SignedPartsOut,
  SignedPart: SignedPartOut,
  StoredPart: StoredPartOut,
  ResumableUploadStatus: UploadStatusOut,
  AbortedUpload: AbortedUploadOut,
});
