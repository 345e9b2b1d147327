/**
 * The functions the table stream feeds in AWS, with their event source mappings' filters (lib/constructs/),
 * for the local stream stand-in (table-stream.ts). Handlers load on first use, after the environment is set.
 */
import { join } from 'node:path';
import { OUTBOX_STREAM_FILTER } from '../../functions/contracts/outbox-stream.ts';
import { SWEEPER_STREAM_FILTER } from '../../functions/contracts/library-sweep.ts';
import type { StreamConsumer } from './table-stream.ts';

export const EVENT_PUBLISHER: StreamConsumer = {
  name: 'publish-events',
  filter: OUTBOX_STREAM_FILTER,
  load: async () => (await import('../../functions/handlers/publish-events.ts')).handler,
};

export const LIBRARY_SWEEPER: StreamConsumer = {
  name: 'sweep-library-leftovers',
  filter: SWEEPER_STREAM_FILTER,
  load: async () => (await import('../../functions/handlers/sweep-library-leftovers.ts')).handler,
};

export const STREAM_CONSUMERS = [EVENT_PUBLISHER, LIBRARY_SWEEPER];

/** Where a DATA_DIR keeps how far each consumer has read the stream (npm start and the CLIs share it, one at a time). */
export const streamCheckpointFile = (dataDir: string) => join(dataDir, 'stream-checkpoints.json');
