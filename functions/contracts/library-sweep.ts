/**
 * The records whose expiry the library sweeper acts on, as the table stream hands them over (the old image
 * of a TTL deletion, unmarshalled). Only the fields the sweep needs are read; others pass.
 */
import * as z from 'zod/mini';
import type { Leftover } from '../domain/library.ts';
import { SWEPT_RECORD_TYPES } from './streamed-record-types.ts';

/**
 * The stream records the sweeper is given, as a Lambda event filter pattern: DynamoDB's own TTL deletions
 * (its service identity; a delete by the service or a person carries none) of the swept record types. The
 * CDK stack sets it on the event source mapping; the local TTL stand-in applies the same pattern.
 */
export const SWEEPER_STREAM_FILTER = {
  eventName: ['REMOVE'],
  userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
  dynamodb: { OldImage: { Type: { S: [...SWEPT_RECORD_TYPES] } } },
};

const Id = z.string().check(z.regex(/^[0-9a-f]{32}$/));

export const SweptRecord = z.discriminatedUnion('Type', [
  z.looseObject({ Type: z.literal('IngestIntent'), anonymousUserId: Id }),
  z.looseObject({ Type: z.literal('PendingUpload'), anonymousUserId: Id, objectKey: z.string() }),
  z.looseObject({ Type: z.literal('ErasureIntent'), objectKey: z.string() }),
  z.looseObject({ Type: z.literal('ErasureHoldEnd'), itemGuid: Id, endsAt: z.number() }),
  z.looseObject({
    Type: z.literal('ArtworkCheckout'),
    checkoutId: Id,
    lines: z.array(z.looseObject({ projectGuid: Id, artworkDigest: z.optional(Id) })),
  }),
  z.looseObject({
    Type: z.literal('MultipartUpload'),
    anonymousUserId: Id,
    objectKey: z.string(),
    uploadId: z.string(),
  }),
]);

export type SweptRecord = z.infer<typeof SweptRecord>;

export function toLeftover(record: SweptRecord): Leftover {
  if (record.Type === 'ArtworkCheckout')
    return {
      endedHold: {
        checkoutId: record.checkoutId,
        artwork: record.lines.flatMap(({ projectGuid, artworkDigest }) =>
          artworkDigest === undefined ? [] : [{ projectGuid, artworkDigest }],
        ),
      },
    };
  if (record.Type === 'ErasureIntent') return { erasedObjectKey: record.objectKey };
  if (record.Type === 'ErasureHoldEnd') return { unpaidHoldsEnd: { itemGuid: record.itemGuid, endsAt: record.endsAt } };
  if (record.Type === 'PendingUpload') return { anonymousUserId: record.anonymousUserId, stagingKey: record.objectKey };
  if (record.Type === 'MultipartUpload')
    return {
      anonymousUserId: record.anonymousUserId,
      multipartUpload: { objectKey: record.objectKey, uploadId: record.uploadId },
    };
  return { anonymousUserId: record.anonymousUserId };
}
