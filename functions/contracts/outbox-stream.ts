/**
 * The stream records the event publisher is given: new outbox records (store/outbox-store.ts), as a Lambda
 * event filter pattern. The CDK stack sets it on the publisher's event source mapping; the local stream
 * consumer (lib/local/table-stream.ts) applies the same pattern.
 */
import * as z from 'zod/mini';
import { DOMAIN_EVENT_TYPES } from '../shared/event-types.ts';
import { OUTBOX_TYPE } from './streamed-record-types.ts';

export const OUTBOX_STREAM_FILTER = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { Type: { S: [OUTBOX_TYPE] } } },
};

/** An outbox record's event, as the stream's new image holds it (unmarshalled). */
export const OutboxRecord = z.looseObject({
  Type: z.literal(OUTBOX_TYPE),
  event: z.object({
    type: z.enum(DOMAIN_EVENT_TYPES),
    id: z.string(),
    time: z.number(),
    detail: z.record(z.string(), z.unknown()),
  }),
});
