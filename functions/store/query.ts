/**
 * Paged Query: every listing reads one partition, one page at a time, so its cost is bounded by the page.
 * `queryPage` reads one page and hands out a cursor that can only continue the same listing: it holds
 * the last key read, and is refused (400 InvalidCursor) unless its partition is the caller's own and its
 * sort key lies in the listing's range, so a tampered or foreign cursor reads nothing it should not.
 * `queryEach` reads page after page for the few callers that need more than one (the CLI).
 */
import { QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { badRequest } from '../shared/errors.ts';

/** The listing a page belongs to: the table's keys, one partition, a sort-key prefix. */
export interface PageRange {
  partitionKey: string;
  partitionValue: string;
  sortKey: string;
  sortKeyPrefix: string;
}

/** What a caller asks of a listing: at most `limit` items, after the item `cursor` names. */
export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page {
  items: Record<string, unknown>[];
  /** Present only when more items follow this page. */
  nextCursor?: string;
}

const invalidCursor = () =>
  badRequest('InvalidCursor', 'cursor: not a cursor this listing handed out; start again without it.');

/** A cursor for the page after the item with this key (base64url of its two key attributes). */
export function encodeCursor(range: PageRange, item: Record<string, unknown>): string {
  const key = [item[range.partitionKey], item[range.sortKey]];
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The ExclusiveStartKey of a cursor, checked against the listing; a 400 for anything else. */
export function decodeCursor(range: PageRange, cursor: string): Record<string, string> {
  let key: unknown;
  try {
    if (!/^[A-Za-z0-9_-]{1,1024}$/.test(cursor)) throw invalidCursor();
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(key) || key.length !== 2) throw invalidCursor();
  const [partition, sort] = key as unknown[];
  if (partition !== range.partitionValue || typeof sort !== 'string' || !sort.startsWith(range.sortKeyPrefix))
    throw invalidCursor();
  return { [range.partitionKey]: partition, [range.sortKey]: sort };
}

/**
 * One Query of at most `limit + 1` items: the extra one only tells whether another page exists, so
 * `nextCursor` is present exactly when more items follow. `input` names the key condition; the range
 * must describe the same partition and prefix, with `:pk` and `:prefix` bound by the caller.
 */
export async function queryPage(input: QueryCommandInput, range: PageRange, page: PageRequest): Promise<Page> {
  const startKey = page.cursor === undefined ? undefined : decodeCursor(range, page.cursor);
  const result = await dynamo.send(
    new QueryCommand({ ...input, Limit: page.limit + 1, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }),
  );
  const items = result.Items ?? [];
  if (items.length <= page.limit) return { items };
  const shown = items.slice(0, page.limit);
  return { items: shown, nextCursor: encodeCursor(range, shown[shown.length - 1] as Record<string, unknown>) };
}

/** Runs the Query page after page, handing each page to `take`, until the results end or `take` answers false. */
export async function queryEach(
  input: QueryCommandInput,
  take: (page: QueryCommandOutput) => boolean | void,
): Promise<void> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({ ...input, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }),
    );
    if (take(page) === false) return;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
