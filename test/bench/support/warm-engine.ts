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
 * against 2.5 ms once the engine had run transactions of that shape (docs/performance.md).
 */
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const ROUNDS = 3_000;
const PARTITIONS = 50;

/** A record with every attribute type the service's records hold. */
const record = (round: number) => ({
  Type: 'BenchWarm',
  text: 'x'.repeat(400),
  number: round,
  nothing: null,
  flag: round % 2 === 0,
  guids: [`${round}`.padStart(32, '0'), `${round + 1}`.padStart(32, '0')],
  nested: { kind: 'BenchWarm', detail: { Id: `${round}`, Guids: [`${round}`.padStart(32, '0')], Count: round } },
});

export async function warmEngine(dynamo: DynamoDBDocumentClient, tableName: string): Promise<void> {
  const created = {
    ConditionExpression: 'attribute_not_exists(PK)',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  } as const;
  for (let round = 0; round < ROUNDS; round++) {
    const pk = `BENCHWARM#${round % PARTITIONS}`;
    const key = { PK: pk, SK: `S#${round % 20}` };
    const txKey = (sk: string) => ({ PK: `BENCHWARMTX#${round}`, SK: sk });
    await dynamo.send(new PutCommand({ TableName: tableName, Item: { ...key, ...record(round) } }));
    await dynamo.send(new GetCommand({ TableName: tableName, Key: key }));
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET #nested.#kind = :kind, touchedAt = if_not_exists(touchedAt, :now) REMOVE #gone',
        ConditionExpression: 'attribute_exists(PK) AND #number = :number',
        ExpressionAttributeNames: { '#nested': 'nested', '#kind': 'kind', '#gone': 'gone', '#number': 'number' },
        ExpressionAttributeValues: { ':kind': 'Touched', ':now': round, ':number': round },
      }),
    );
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: { ...txKey('A'), ...record(round) }, ...created } },
          { Put: { TableName: tableName, Item: { ...txKey('B'), ...record(round) }, ...created } },
          { Put: { TableName: tableName, Item: { ...txKey('C'), ...record(round) }, ...created } },
          {
            Update: {
              TableName: tableName,
              Key: key,
              UpdateExpression: 'SET #flag = :flag',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeNames: { '#flag': 'flag' },
              ExpressionAttributeValues: { ':flag': true },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      }),
    );
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: tableName,
              Key: txKey('A'),
              ConditionExpression: '#number = :number',
              ExpressionAttributeNames: { '#number': 'number' },
              ExpressionAttributeValues: { ':number': round },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          { Delete: { TableName: tableName, Key: txKey('C'), ConditionExpression: 'attribute_exists(PK)' } },
        ],
      }),
    );
    await dynamo.send(
      new DeleteCommand({ TableName: tableName, Key: txKey('B'), ConditionExpression: 'attribute_exists(PK)' }),
    );
    if (round % 10 === 0) {
      await dynamo.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: [key, txKey('A'), { PK: pk, SK: 'S#none' }] } } }),
      );
      await dynamo.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': 'S#' },
          Limit: 5,
          ExclusiveStartKey: { PK: pk, SK: 'S#1' },
        }),
      );
    }
  }
}
