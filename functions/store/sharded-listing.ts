/**
 * A listing spread over shards (partitions `shardPk(base, n)`, keys.ts) read as one, in sort-key order: each
 * shard is queried in small chunks and the chunks merged, so a page of `limit` items reads about `limit`
 * plus a chunk per shard, never a Scan. The cursor names the last item shown (its sort key, in the base
 * partition's cursor form, query.ts), and every shard continues after it.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { decodeCursor, encodeCursor, type Page, type PageRange, type PageRequest } from './query.ts';
import { shardPk } from './keys.ts';
import { table } from './table.ts';

export interface ShardedListing {
  basePk: string;
  shards: number;
  sortKeyPrefix: string;
  /** Newest (highest sort key) first, or oldest first. */
  newestFirst: boolean;
}

interface ShardReader {
  buffer: Record<string, unknown>[];
  startKey?: Record<string, unknown> | undefined;
  done: boolean;
}

/** One page of the listing, after the cursor's item when there is one. */
export async function shardedPage(listing: ShardedListing, page: PageRequest): Promise<Page> {
  const range: PageRange = {
    partitionKey: table.partitionKey,
    partitionValue: listing.basePk,
    sortKey: table.sortKey,
    sortKeyPrefix: listing.sortKeyPrefix,
  };
  const after = page.cursor === undefined ? undefined : decodeCursor(range, page.cursor)[table.sortKey];
  const chunk = Math.ceil((page.limit + 1) / listing.shards) + 1;
  const readers: ShardReader[] = Array.from({ length: listing.shards }, () => ({ buffer: [], done: false }));
  const fill = async (reader: ShardReader, shard: number) => {
    const result = await dynamo.send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression:
          after === undefined
            ? 'PK = :pk AND begins_with(SK, :prefix)'
            : `PK = :pk AND SK ${listing.newestFirst ? '<' : '>'} :after`,
        ExpressionAttributeValues: {
          ':pk': shardPk(listing.basePk, shard),
          ...(after === undefined ? { ':prefix': listing.sortKeyPrefix } : { ':after': after }),
        },
        ScanIndexForward: !listing.newestFirst,
        ConsistentRead: true,
        Limit: chunk,
        ...(reader.startKey ? { ExclusiveStartKey: reader.startKey } : {}),
      }),
    );
    reader.buffer.push(...(result.Items ?? []));
    reader.startKey = result.LastEvaluatedKey;
    reader.done = result.LastEvaluatedKey === undefined;
  };
  const before = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    listing.newestFirst
      ? String(a[table.sortKey]) > String(b[table.sortKey])
      : String(a[table.sortKey]) < String(b[table.sortKey]);
  const items: Record<string, unknown>[] = [];
  // One more than the page: it tells whether another page follows.
  while (items.length <= page.limit) {
    await Promise.all(
      readers.flatMap((reader, shard) => (reader.buffer.length === 0 && !reader.done ? [fill(reader, shard)] : [])),
    );
    let next: ShardReader | undefined;
    for (const reader of readers)
      if (reader.buffer.length > 0 && (!next || before(reader.buffer[0]!, next.buffer[0]!))) next = reader;
    if (!next) break;
    items.push(next.buffer.shift()!);
  }
  if (items.length <= page.limit) return { items };
  const shown = items.slice(0, page.limit);
  return { items: shown, nextCursor: encodeCursor(range, { ...shown[shown.length - 1], PK: listing.basePk }) };
}
