/**
 * The table stream's event source mappings, for the local stack: reads DynamoDB Local's stream of the table
 * (every shard, in order) and hands each consumer the records its Lambda event filter passes, in batches,
 * as Lambda does. A batch that reports a failure (ReportBatchItemFailures) or throws is retried from the
 * failed record on the next poll; nothing after it is handed over first. What was handed over successfully
 * is checkpointed per consumer (in DATA_DIR when there is one), so a restart goes on where the last run
 * stopped: a change committed just before a crash still has its event published after the restart.
 */
import { readFileSync } from 'node:fs';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { writeFileAtomically } from './atomic-file.ts';
import { lambdaContext } from './lambda-event.ts';
import { matchesFilter } from './event-filter.ts';
import { LOCAL_AWS_ENV, localDynamoClient, type LocalStorage } from './storage.ts';

export interface StreamConsumer {
  /** The function's name, as in AWS. */
  name: string;
  /** The Lambda event filter pattern of its event source mapping. */
  filter: Record<string, unknown>;
  /** Loaded on first use, after the caller has set the environment (as a cold start would). */
  load(): Promise<(event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>>;
}

/** Per consumer, since the stream was opened: records it finished, and records waiting behind a failure now. */
export type StreamReport = Record<string, { handled: number; retrying: number }>;

export interface TableStream {
  /** Reads the stream until nothing new is left and every consumer is done with it (or failing). */
  drain(): Promise<StreamReport>;
  close(): Promise<void>;
}

const BATCH_SIZE = 100;

/** Per consumer and shard: the sequence number of the last record handed over successfully. */
type Checkpoints = Record<string, Record<string, string>>;

const toLambdaRecord = (record: StreamRecord): DynamoDBRecord =>
  ({
    ...record,
    dynamodb: {
      ...record.dynamodb,
      ApproximateCreationDateTime: Math.floor((record.dynamodb?.ApproximateCreationDateTime?.getTime() ?? 0) / 1000),
    },
  }) as DynamoDBRecord;

export function tableStream(
  storage: Pick<LocalStorage, 'dynamoEndpoint'>,
  tableName: string,
  consumers: StreamConsumer[],
  options: {
    checkpointFile?: string;
    pollIntervalMs?: number;
    /** What the engine cannot put on a record itself (ttl.ts: the identity of TTL's deletions). */
    prepare?: (record: DynamoDBRecord) => DynamoDBRecord;
  } = {},
): TableStream {
  const prepare = options.prepare ?? ((record: DynamoDBRecord) => record);
  const report: StreamReport = Object.fromEntries(
    consumers.map((consumer) => [consumer.name, { handled: 0, retrying: 0 }]),
  );
  const dynamo: DynamoDBClient = localDynamoClient(storage);
  const streams = new DynamoDBStreamsClient({
    endpoint: storage.dynamoEndpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  let checkpoints: Checkpoints = {};
  if (options.checkpointFile) {
    try {
      checkpoints = JSON.parse(readFileSync(options.checkpointFile, 'utf8')) as Checkpoints;
    } catch {
      // First start on this data directory: from the oldest record the stream keeps.
    }
  }
  const saveCheckpoints = () => {
    if (options.checkpointFile) writeFileAtomically(options.checkpointFile, JSON.stringify(checkpoints));
  };

  let streamArn: string | undefined;
  const handlers = new Map<string, Promise<Awaited<ReturnType<StreamConsumer['load']>>>>();
  const handlerOf = (consumer: StreamConsumer) => {
    let loaded = handlers.get(consumer.name);
    if (!loaded) handlers.set(consumer.name, (loaded = consumer.load()));
    return loaded;
  };

  /** Every record of the shard after `after` (oldest first), as far as the stream has them now. */
  async function recordsOf(shardId: string, after: string | undefined): Promise<StreamRecord[]> {
    let iterator: string | undefined;
    try {
      iterator = (
        await streams.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shardId,
            ...(after
              ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
              : { ShardIteratorType: 'TRIM_HORIZON' }),
          }),
        )
      ).ShardIterator;
    } catch (error) {
      // The records after the checkpoint are gone (older than the stream keeps): start from what is there.
      if (!(error instanceof TrimmedDataAccessException)) throw error;
      return recordsOf(shardId, undefined);
    }
    const records: StreamRecord[] = [];
    while (iterator) {
      let page;
      try {
        page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      } catch (error) {
        if (error instanceof ExpiredIteratorException) break;
        throw error;
      }
      records.push(...(page.Records ?? []));
      // An open shard answers an empty page at its end; a closed one answers no next iterator.
      if ((page.Records ?? []).length === 0) break;
      iterator = page.NextShardIterator;
    }
    return records;
  }

  /** Hands one consumer its records of one shard, batch by batch; stops at the first failure. */
  async function deliver(consumer: StreamConsumer, shardId: string, records: StreamRecord[]): Promise<void> {
    const done = (checkpoints[consumer.name] ??= {});
    const after = done[shardId];
    const pending = after === undefined ? records : records.filter((record) => isAfter(record, after));
    for (let start = 0; start < pending.length; start += BATCH_SIZE) {
      const batch = pending.slice(start, start + BATCH_SIZE);
      const passed = batch
        .map((record) => prepare(toLambdaRecord(record)))
        .filter((record) => matchesFilter(consumer.filter, record));
      let failedAt: string | undefined;
      if (passed.length > 0) {
        try {
          const handler = await handlerOf(consumer);
          const response = await handler({ Records: passed }, lambdaContext(consumer.name, 60_000));
          failedAt = response?.batchItemFailures?.[0]?.itemIdentifier;
        } catch (error) {
          process.stderr.write(`${consumer.name}: batch failed, retried on the next poll: ${String(error)}\n`);
          failedAt = passed[0]?.dynamodb?.SequenceNumber;
        }
      }
      const counts = report[consumer.name] as StreamReport[string];
      if (failedAt !== undefined) {
        // Everything before the failed record is done; the failed record and what follows are retried.
        const failedIndex = passed.findIndex((record) => record.dynamodb?.SequenceNumber === failedAt);
        counts.handled += Math.max(0, failedIndex);
        counts.retrying = passed.length - Math.max(0, failedIndex);
        const index = batch.findIndex((record) => record.dynamodb?.SequenceNumber === failedAt);
        const lastDone = index > 0 ? batch[index - 1] : start > 0 ? pending[start - 1] : undefined;
        if (lastDone) done[shardId] = lastDone.dynamodb?.SequenceNumber as string;
        saveCheckpoints();
        return;
      }
      counts.handled += passed.length;
      counts.retrying = 0;
      done[shardId] = batch[batch.length - 1]?.dynamodb?.SequenceNumber as string;
      saveCheckpoints();
    }
  }

  async function poll(): Promise<number> {
    streamArn ??= (await dynamo.send(new DescribeTableCommand({ TableName: tableName }))).Table?.LatestStreamArn;
    if (!streamArn) throw new Error(`table ${tableName} has no stream`);
    let handed = 0;
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription: description } = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: exclusiveStartShardId }),
      );
      for (const shard of description?.Shards ?? []) {
        const shardId = shard.ShardId as string;
        // From the consumer furthest behind (TRIM_HORIZON for one that has seen nothing of this shard yet).
        const marks = consumers.map((consumer) => checkpoints[consumer.name]?.[shardId]);
        const from = marks.includes(undefined)
          ? undefined
          : (marks as string[]).reduce((low, mark) => (isBefore(mark, low) ? mark : low));
        const records = await recordsOf(shardId, from);
        for (const consumer of consumers) await deliver(consumer, shardId, records);
        handed += records.length;
      }
      exclusiveStartShardId = description?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);
    return handed;
  }

  // One poll at a time: the timer and drain() share it. The timer adds a poll only when none is running or
  // waiting: on a loaded machine a poll outlasts the interval, and polls queued at every tick would pile up
  // (hundreds behind a test's bulk writes), each competing with the requests for the engine's table lock,
  // and drain() and close() would wait them all out.
  let running: Promise<number> = Promise.resolve(0);
  let polls = 0;
  const pollOnce = () => {
    polls++;
    return (running = running
      .catch(() => 0)
      .then(poll)
      .finally(() => polls--));
  };
  const timer =
    options.pollIntervalMs && options.pollIntervalMs > 0
      ? setInterval(() => {
          if (polls > 0) return;
          pollOnce().catch((error: unknown) => process.stderr.write(`table stream: ${String(error)}\n`));
        }, options.pollIntervalMs).unref()
      : undefined;

  return {
    async drain() {
      await pollOnce();
      return structuredClone(report);
    },
    async close() {
      clearInterval(timer);
      await running.catch(() => 0);
      streams.destroy();
      dynamo.destroy();
    },
  };
}

/** Sequence numbers are decimal strings of growing length: compare as numbers. */
const compare = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);
const isBefore = (a: string, b: string) => compare(a, b) < 0;
const isAfter = (record: StreamRecord, sequence: string) =>
  compare(record.dynamodb?.SequenceNumber as string, sequence) > 0;
