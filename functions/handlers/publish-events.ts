/**
 * Table stream consumer: publishes each new outbox record's domain event (store/outbox-store.ts) to
 * EventBridge (locally: the events file). The event was written in the same transaction as its change, so
 * it is published exactly for the changes that committed, at least once (a retried batch may publish it
 * again; consumers drop duplicates by its EventId). The batch's events go out in stream order, up to 10 per
 * PutEvents, each aggregate's in order (shared/event-batches.ts); the first event that could not be published
 * is reported (ReportBatchItemFailures), so the stream retries from its record and no later event overtakes it.
 * Each event carries its outbox record's correlation id onto the bus; the batch's events are of many requests,
 * so a line about one event names its id itself.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod/mini';
import { OutboxRecord } from '../contracts/outbox-stream.ts';
import { publishEvents, type DomainEvent } from '../shared/events.ts';
import type { Publication } from '../shared/event-batches.ts';
import { logger } from '../shared/powertools.ts';
import { emitMetrics } from '../shared/metrics.ts';
import { correlationIdOf } from '../store/table.ts';
import { METRIC } from '../shared/metric-names.ts';

/** The batch's outbox events, in stream order, each with its record. */
const outboxEvents = (records: DynamoDBRecord[]): { record: DynamoDBRecord; event: DomainEvent }[] =>
  records.flatMap((record) => {
    if (record.eventName !== 'INSERT') return [];
    const image = unmarshall((record.dynamodb?.NewImage ?? {}) as Record<string, AttributeValue>);
    const parsed = z.safeParse(OutboxRecord, image);
    // Only outbox records pass the mapping's filter in AWS; anything else is not an event to publish.
    return parsed.success ? [{ record, event: { ...parsed.data.event, correlationId: correlationIdOf(image) } }] : [];
  });

export async function handler(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  logger.addContext(context);
  const batch = outboxEvents(event.Records);
  const publication = await publishEvents(batch.map((item) => item.event)).catch((error: unknown): Publication => ({
    published: 0,
    failed: { index: 0, refusal: { code: 'Error', message: String(error) } },
  }));
  emitMetrics({ [METRIC.EventsPublished]: publication.published });
  const failed = publication.failed && batch[publication.failed.index];
  if (!failed) return { batchItemFailures: [] };
  logger.error('event publication failed; the stream retries from this record', {
    correlation_id: failed.event.correlationId,
    eventId: failed.event.id,
    type: failed.event.type,
    errorCode: publication.failed?.refusal.code,
    errorMessage: publication.failed?.refusal.message,
  });
  return { batchItemFailures: [{ itemIdentifier: failed.record.dynamodb?.SequenceNumber ?? '' }] };
}
