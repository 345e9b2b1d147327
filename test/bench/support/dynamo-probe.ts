/**
 * Watches every DynamoDB call the handlers make, through middleware on the shared low-level client
 * (`dynamoDbClient` of functions/shared/clients/dynamodb.ts, whose stack the DocumentClient shares). It records each call's operation,
 * its wire-level input (for replaying the same calls bare), its timing (to count sequential round trips)
 * and, when asked, the consumed capacity (ReturnConsumedCapacity is added to calls that lack it).
 *
 * For repeatable measurements it can also journal, before each write, the item the write replaces, so a
 * benchmark can put the table back exactly as it was before a request (`restore`).
 */
import * as dynamoCommands from '@aws-sdk/client-dynamodb';
import {
  DynamoDBClient,
  GetItemCommand,
  DeleteItemCommand,
  PutItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { table } from '../../../functions/store/table.ts';

export interface DynamoCall {
  /** Operation name, e.g. `GetItem`. */
  operation: string;
  /** The wire-level (marshalled) input, as sent. */
  input: Record<string, unknown>;
  start: number;
  end: number;
  capacityUnits: number;
  failed: boolean;
}

type Item = Record<string, AttributeValue>;

const CAPACITY_OPERATIONS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
]);
const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

type TransactAction = {
  Put?: { TableName: string; Item: Item };
  Update?: { TableName: string; Key: Item };
  Delete?: { TableName: string; Key: Item };
  ConditionCheck?: { TableName: string; Key: Item };
};

/** An attribute value's size as DynamoDB bills it (UTF-8 names and strings, numbers by digits, 3 bytes per document). */
function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/^-|\./g, '').length / 2) + 1;
  if (value.B !== undefined) return value.B.length;
  if (value.M !== undefined) return 3 + itemSize(value.M) + Object.keys(value.M).length;
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + valueSize(element) + 1, 0);
  return 1;
}
const itemSize = (item: Item): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);

/**
 * A TransactWriteItems' write capacity as DynamoDB bills it: every action (ConditionCheck included) costs
 * twice a plain write of its item, i.e. 2 units per started KB. DynamoDB Local reports a flat 2 whatever
 * the transaction holds, so the probe computes it: a put's size from its item, the others' from the item
 * as it was before (the journal, when recording one), at least 1 KB.
 */
function transactionCapacity(input: Record<string, unknown>, journal: Journal): number {
  return (input.TransactItems as TransactAction[]).reduce((sum, action) => {
    const target = action.Update ?? action.Delete ?? action.ConditionCheck;
    const before = target ? journal.get(keyId(target.TableName, target.Key))?.before : undefined;
    const size = action.Put ? itemSize(action.Put.Item) : before ? itemSize(before) : 0;
    return sum + 2 * Math.max(1, Math.ceil(size / 1024));
  }, 0);
}

const operationOf = (commandName: string | undefined): string => (commandName ?? 'Unknown').replace(/Command$/, '');

const capacityOf = (output: Record<string, unknown> | undefined): number => {
  const consumed = output?.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
};

/** The table keys (PK, SK) a write call touches. */
function writtenKeys(operation: string, input: Record<string, unknown>): { tableName: string; key: Item }[] {
  const keyOf = (item: Item): Item => ({
    [table.partitionKey]: item[table.partitionKey] as AttributeValue,
    [table.sortKey]: item[table.sortKey] as AttributeValue,
  });
  if (operation === 'PutItem') return [{ tableName: input.TableName as string, key: keyOf(input.Item as Item) }];
  if (operation === 'UpdateItem' || operation === 'DeleteItem')
    return [{ tableName: input.TableName as string, key: keyOf(input.Key as Item) }];
  if (operation === 'TransactWriteItems') {
    // A ConditionCheck is read here too: the capacity of the transaction depends on its item's size.
    return (input.TransactItems as TransactAction[]).map((action) => {
      if (action.Put) return { tableName: action.Put.TableName, key: keyOf(action.Put.Item) };
      const target = (action.Update ?? action.Delete ?? action.ConditionCheck) as { TableName: string; Key: Item };
      return { tableName: target.TableName, key: keyOf(target.Key) };
    });
  }
  if (operation === 'BatchWriteItem') {
    const requests = input.RequestItems as Record<
      string,
      { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]
    >;
    return Object.entries(requests).flatMap(([tableName, writes]) =>
      writes.map((write) => ({ tableName, key: keyOf(write.PutRequest?.Item ?? (write.DeleteRequest?.Key as Item)) })),
    );
  }
  return [];
}

const keyId = (tableName: string, key: Item): string =>
  JSON.stringify([tableName, key[table.partitionKey], key[table.sortKey]]);

export interface ProbeOptions {
  /** Ask DynamoDB for the consumed capacity (changes the request, so off while timing). */
  capacity?: boolean;
  /** Before each write, read the item it replaces into the journal (slow; for untimed runs only). */
  journal?: boolean;
}

interface JournalEntry {
  tableName: string;
  key: Item;
  before: Item | undefined;
}

/** The items as they were before the journalled writes, by key. */
export type Journal = Map<string, JournalEntry>;

export interface Recording {
  calls: DynamoCall[];
  journal: Journal;
}

export class DynamoProbe {
  calls: DynamoCall[] = [];
  private options: ProbeOptions = {};
  private journal: Journal = new Map();
  /** A separate client for the probe's own reads and restores, so they never show up as handler calls. */
  private readonly own: DynamoDBClient;

  constructor(watched: DynamoDBClient, endpoint: string, region: string) {
    this.own = new DynamoDBClient({ endpoint, region });
    watched.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        const wantsCapacity =
          this.options.capacity &&
          CAPACITY_OPERATIONS.has(operationOf(context.commandName)) &&
          input.ReturnConsumedCapacity === undefined;
        return next(wantsCapacity ? { ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } } : args);
      },
      { step: 'initialize', name: 'benchCapacity', priority: 'high' },
    );
    watched.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = operationOf(context.commandName);
        // At the build step the DocumentClient has already marshalled its input to the wire form.
        const input = args.input as Record<string, unknown>;
        // Started before the journal's own reads: a call sent side by side with another stays in its wave.
        const start = performance.now();
        if (this.options.journal && WRITE_OPERATIONS.has(operation)) await this.remember(operation, input);
        const call: DynamoCall = {
          operation,
          input,
          start,
          end: 0,
          capacityUnits: 0,
          failed: false,
        };
        this.calls.push(call);
        try {
          const result = await next(args);
          call.capacityUnits =
            operation === 'TransactWriteItems' && this.options.capacity
              ? transactionCapacity(input, this.journal)
              : capacityOf(result.output as unknown as Record<string, unknown>);
          return result;
        } catch (error) {
          call.failed = true;
          throw error;
        } finally {
          call.end = performance.now();
        }
      },
      { step: 'build', name: 'benchRecorder' },
    );
  }

  /** Starts a fresh record of calls (and a fresh journal). */
  watch(options: ProbeOptions = {}): void {
    this.options = options;
    this.calls = [];
    this.journal = new Map();
  }

  /** The calls (and journal) since `watch`; recording options are reset. */
  take(): Recording {
    const recording = { calls: this.calls, journal: this.journal };
    this.options = {};
    this.calls = [];
    this.journal = new Map();
    return recording;
  }

  private async remember(operation: string, input: Record<string, unknown>): Promise<void> {
    for (const { tableName, key } of writtenKeys(operation, input)) {
      const id = keyId(tableName, key);
      if (this.journal.has(id)) continue;
      const current = await this.own.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
      this.journal.set(id, { tableName, key, before: current.Item });
    }
  }

  /**
   * Puts back every item of `journal` as it was before its first journalled write, and deletes the items
   * `calls` created under keys the journal does not know (fresh ids).
   */
  async restore(journal: Journal, calls: readonly DynamoCall[] = []): Promise<void> {
    const fresh = new Map<string, { tableName: string; key: Item }>();
    for (const call of calls) {
      for (const written of writtenKeys(call.operation, call.input)) {
        const id = keyId(written.tableName, written.key);
        if (!journal.has(id)) fresh.set(id, written);
      }
    }
    await Promise.all([
      ...[...journal.values()].map(({ tableName, key, before }) =>
        before
          ? this.own.send(new PutItemCommand({ TableName: tableName, Item: before }))
          : this.own.send(new DeleteItemCommand({ TableName: tableName, Key: key })),
      ),
      ...[...fresh.values()].map(({ tableName, key }) =>
        this.own.send(new DeleteItemCommand({ TableName: tableName, Key: key })),
      ),
    ]);
  }
}

/**
 * The calls grouped into waves: a call joins the wave after the latest wave holding a call that ended
 * before it started. The number of waves is the number of sequential round trips; calls in one wave ran
 * side by side.
 */
export function waves(calls: readonly DynamoCall[]): DynamoCall[][] {
  const depth = new Map<DynamoCall, number>();
  const ordered = [...calls].sort((a, b) => a.start - b.start);
  for (const call of ordered) {
    let level = 0;
    for (const earlier of ordered) {
      if (earlier === call) break;
      if (earlier.end <= call.start) level = Math.max(level, (depth.get(earlier) ?? 0) + 1);
    }
    depth.set(call, level);
  }
  const grouped: DynamoCall[][] = [];
  for (const call of ordered) (grouped[depth.get(call) as number] ??= []).push(call);
  return grouped;
}

/** Sends the same wire-level calls on a plain client, wave by wave, calls of a wave side by side. */
export async function replay(client: DynamoDBClient, calls: readonly DynamoCall[]): Promise<void> {
  const commands = dynamoCommands as unknown as Record<
    string,
    new (input: unknown) => Parameters<DynamoDBClient['send']>[0]
  >;
  for (const wave of waves(calls)) {
    await Promise.all(
      wave.map(async (call) => {
        const Command = commands[`${call.operation}Command`];
        if (!Command) throw new Error(`cannot replay ${call.operation}`);
        await client.send(new Command(call.input)).catch((error: unknown) => {
          if (!call.failed) throw error;
        });
      }),
    );
  }
}
