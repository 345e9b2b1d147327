/**
 * Table stream consumer: publishes each new outbox record's domain event (store/outbox-store.ts) to
 * EventBridge (locally: the events file). The event was written in the same transaction as its change, so
 * it is published exactly for the changes that committed, at least once (a retried batch may publish it
 * again; consumers drop duplicates by its EventId). Records are handled in stream order; the first failure
 * is reported (ReportBatchItemFailures), so the stream retries from it and no later event overtakes it.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod/mini';
import { OutboxRecord } from '../contracts/outbox-stream.ts';
import { publishEvent } from '../shared/events.ts';
import { logger } from '../shared/powertools.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { METRIC } from '../shared/metric-names.ts';

export async function handler(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  logger.addContext(context);
  let published = 0;
  try {
    for (const record of event.Records) {
      if (record.eventName !== 'INSERT') continue;
      const parsed = z.safeParse(
        OutboxRecord,
        unmarshall((record.dynamodb?.NewImage ?? {}) as Record<string, AttributeValue>),
      );
      // Only outbox records pass the mapping's filter in AWS; anything else is not an event to publish.
      if (!parsed.success) continue;
      try {
        await publishEvent(parsed.data.event);
        published++;
      } catch (error) {
        logger.error('event publication failed; the stream retries from this record', {
          eventId: parsed.data.event.id,
          type: parsed.data.event.type,
          error: error as Error,
        });
        return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
      }
    }
    return { batchItemFailures: [] };
  } finally {
    emitMetrics({ [METRIC.EventsPublished]: published });
  }
}
