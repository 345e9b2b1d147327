/**
 * DynamoDB Local is a JVM: its first thousands of calls run interpreted, several times slower than once the
 * JIT has compiled its paths (measured here on a fresh engine: a push's PutItem 9-34 ms and its commit's
 * TransactWriteItems 15-19 ms, against 3.7 and 4.9 ms after a warm-up). DynamoDB in AWS has no such phase,
 * so a benchmark that measures the service against bare calls warms the engine first, on a scratch
 * partition no request reads, with what the handlers send: every operation (GetItem, BatchGetItem, Query
 * with a key prefix and a start key, PutItem, UpdateItem, DeleteItem, TransactWriteItems) and every feature
 * they use (conditions, ReturnValuesOnConditionCheckFailure, SET/REMOVE on map paths, if_not_exists,
 * transactions of several creates, updates, checks and deletes), on records holding every attribute type
 * the service stores (strings, numbers, null, booleans, lists, nested maps).
 *
 * The JIT compiles what runs, and no more: a warm-up of two-put transactions of flat records left a push's
 * commit (four creates of records with lists, maps and nulls) at a median of 5 ms in the measured rounds,
 * against 2.5-3 ms once the engine had run transactions of that shape (docs/performance.md).
 *
 * The calls go out on the handlers' low-level client with their attribute values written out, not through
 * the document layer (lib-dynamodb), so the warm-up trains the engine and not the measured process's
 * marshalling, which only the handlers' side of figure 2 runs.
 */
import {
  BatchGetItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

const ROUNDS = 3_000;
const PARTITIONS = 50;

const s = (value: string): AttributeValue => ({ S: value });
const n = (value: number): AttributeValue => ({ N: String(value) });
const guid = (round: number) => s(`${round}`.padStart(32, '0'));

/** A record with every attribute type the service's records hold. */
const record = (round: number): Record<string, AttributeValue> => ({
  Type: s('BenchWarm'),
  text: s('x'.repeat(400)),
  number: n(round),
  nothing: { NULL: true },
  flag: { BOOL: round % 2 === 0 },
  guids: { L: [guid(round), guid(round + 1)] },
  nested: {
    M: { kind: s('BenchWarm'), detail: { M: { Id: s(`${round}`), Guids: { L: [guid(round)] }, Count: n(round) } } },
  },
});

export async function warmEngine(client: DynamoDBClient, TableName: string): Promise<void> {
  const created = {
    ConditionExpression: 'attribute_not_exists(PK)',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  } as const;
  for (let round = 0; round < ROUNDS; round++) {
    const pk = `BENCHWARM#${round % PARTITIONS}`;
    const Key = { PK: s(pk), SK: s(`S#${round % 20}`) };
    const txKey = (sk: string) => ({ PK: s(`BENCHWARMTX#${round}`), SK: s(sk) });
    await client.send(new PutItemCommand({ TableName, Item: { ...Key, ...record(round) } }));
    await client.send(new GetItemCommand({ TableName, Key }));
    await client.send(
      new UpdateItemCommand({
        TableName,
        Key,
        UpdateExpression: 'SET #nested.#kind = :kind, touchedAt = if_not_exists(touchedAt, :now) REMOVE #gone',
        ConditionExpression: 'attribute_exists(PK) AND #number = :number',
        ExpressionAttributeNames: { '#nested': 'nested', '#kind': 'kind', '#gone': 'gone', '#number': 'number' },
        ExpressionAttributeValues: { ':kind': s('Touched'), ':now': n(round), ':number': n(round) },
      }),
    );
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName, Item: { ...txKey('A'), ...record(round) }, ...created } },
          { Put: { TableName, Item: { ...txKey('B'), ...record(round) }, ...created } },
          { Put: { TableName, Item: { ...txKey('C'), ...record(round) }, ...created } },
          {
            Update: {
              TableName,
              Key,
              UpdateExpression: 'SET #flag = :flag',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeNames: { '#flag': 'flag' },
              ExpressionAttributeValues: { ':flag': { BOOL: true } },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      }),
    );
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName,
              Key: txKey('A'),
              ConditionExpression: '#number = :number',
              ExpressionAttributeNames: { '#number': 'number' },
              ExpressionAttributeValues: { ':number': n(round) },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          { Delete: { TableName, Key: txKey('C'), ConditionExpression: 'attribute_exists(PK)' } },
        ],
      }),
    );
    await client.send(
      new DeleteItemCommand({ TableName, Key: txKey('B'), ConditionExpression: 'attribute_exists(PK)' }),
    );
    if (round % 10 === 0) {
      await client.send(
        new BatchGetItemCommand({
          RequestItems: { [TableName]: { Keys: [Key, txKey('A'), { PK: s(pk), SK: s('S#none') }] } },
        }),
      );
      await client.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': s(pk), ':prefix': s('S#') },
          Limit: 5,
          ExclusiveStartKey: { PK: s(pk), SK: s('S#1') },
        }),
      );
    }
  }
}
