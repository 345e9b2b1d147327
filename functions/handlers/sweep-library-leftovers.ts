/**
 * Table stream consumer: when DynamoDB's TTL deletes an expired ingest intent, pending upload or erasure
 * intent, removes the objects it names that nothing refers to (services/library-sweep-service.ts). Records are handled in stream
 * order; the first failure is reported (ReportBatchItemFailures), so Lambda retries from it and nothing
 * after it is skipped. In AWS the event source mapping passes only TTL deletions of those record types;
 * the same checks run here, so any other record is ignored.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod/mini';
import { SweptRecord, toLeftover } from '../contracts/library-sweep.ts';
import { sweepLeftover } from '../services/library-sweep-service.ts';
import { withCorrelationId } from '../shared/correlation.ts';
import { logger } from '../shared/powertools.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { METRIC } from '../shared/metric-names.ts';
import { correlationIdOf } from '../store/table.ts';

/** DynamoDB's own TTL deletions carry this identity; a delete by the service or a person does not. */
export const isTtlDeletion = (record: DynamoDBRecord): boolean =>
  record.eventName === 'REMOVE' &&
  record.userIdentity?.type === 'Service' &&
  record.userIdentity?.principalId === 'dynamodb.amazonaws.com';

export async function handler(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  logger.addContext(context);
  const swept = { [METRIC.LibraryLeftoversSwept]: 0, [METRIC.LibraryItemsSwept]: 0 };
  try {
    for (const record of event.Records) {
      if (!isTtlDeletion(record)) continue;
      const image = unmarshall((record.dynamodb?.OldImage ?? {}) as Record<string, AttributeValue>);
      const parsed = z.safeParse(SweptRecord, image);
      if (!parsed.success) {
        // Only the filter's record types arrive in AWS; one that does not parse is a bug to see, not to retry.
        logger.warn('expired record is not an ingest intent, pending upload or erasure intent; ignored', {
          keys: record.dynamodb?.Keys,
          issues: parsed.error.issues.length,
        });
        continue;
      }
      // The request that wrote the record: its id on the lines about its sweep.
      const failure = await withCorrelationId(correlationIdOf(image), () => sweep(record, parsed.data, swept));
      if (failure) return { batchItemFailures: [failure] };
    }
    return { batchItemFailures: [] };
  } finally {
    emitMetrics(swept);
  }
}

/** Sweeps what one expired record leaves; answers the record as the batch's failure when that failed. */
async function sweep(
  record: DynamoDBRecord,
  expired: SweptRecord,
  swept: Record<(typeof METRIC)['LibraryLeftoversSwept' | 'LibraryItemsSwept'], number>,
): Promise<{ itemIdentifier: string } | undefined> {
  try {
    const outcome = await sweepLeftover(toLeftover(expired));
    if (outcome.kind === 'erased') logger.info('deleted the object of an erased item', { keys: record.dynamodb?.Keys });
    if (outcome.kind === 'uncommitted') {
      logger.info('swept an uncommitted library request', {
        type: expired.Type,
        keys: record.dynamodb?.Keys,
        objectsRemoved: outcome.objectsRemoved,
      });
      swept[METRIC.LibraryLeftoversSwept]++;
      swept[METRIC.LibraryItemsSwept] += outcome.objectsRemoved;
    }
    return undefined;
  } catch (error) {
    logger.error('library sweep failed; the stream retries from this record', {
      type: expired.Type,
      keys: record.dynamodb?.Keys,
      error: error as Error,
    });
    return { itemIdentifier: record.dynamodb?.SequenceNumber ?? '' };
  }
}
