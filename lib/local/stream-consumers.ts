/**
 * The functions the table stream feeds in AWS, with their event source mappings' filters (lib/constructs/),
 * for the local stream stand-in (table-stream.ts). Handlers load on first use, after the environment is set.
 */
import { join } from 'node:path';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { OUTBOX_STREAM_FILTER } from '../../functions/contracts/outbox-stream.ts';
import { SWEEPER_STREAM_FILTER } from '../../functions/contracts/library-sweep.ts';
import type { StreamConsumer } from './table-stream.ts';

type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

export const EVENT_PUBLISHER = { name: 'publish-events', filter: OUTBOX_STREAM_FILTER };
export const LIBRARY_SWEEPER = { name: 'sweep-library-leftovers', filter: SWEEPER_STREAM_FILTER };

export const STREAM_CONSUMERS = [EVENT_PUBLISHER, LIBRARY_SWEEPER];

/** Their handlers from source, for the CLIs that run a consumer themselves. */
export const fromSource = (name: string): Promise<unknown> =>
  import(new URL(`../../functions/handlers/${name}.ts`, import.meta.url).href).then(
    (module: { handler: unknown }) => module.handler,
  );

/** The stream's consumers (all, or `only` these), their handlers loaded by `loadHandler` (from source or their assets). */
export const streamConsumers = (
  loadHandler: (name: string) => Promise<unknown>,
  only: { name: string }[] = STREAM_CONSUMERS,
): StreamConsumer[] =>
  STREAM_CONSUMERS.filter((consumer) => only.includes(consumer)).map((consumer) => ({
    ...consumer,
    load: () => loadHandler(consumer.name) as Promise<StreamHandler>,
  }));

/** Where a DATA_DIR keeps how far each consumer has read the stream (npm start and the CLIs share it, one at a time). */
export const streamCheckpointFile = (dataDir: string) => join(dataDir, 'stream-checkpoints.json');
