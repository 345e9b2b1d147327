/**
 * DynamoDB Local is a JVM: its first thousands of calls run interpreted, several times slower than once the
 * JIT has compiled its paths (measured here on a fresh engine: a push's PutItem 9-34 ms and its commit's
 * TransactWriteItems 15-19 ms, against 3.7 and 4.9 ms after the warm-up below). DynamoDB in AWS has no such
 * phase, so a benchmark that measures the service against bare calls warms the engine first, on a scratch
 * partition no request reads: the same operations the handlers send (GetItem, PutItem, Query, a
 * conditional TransactWriteItems), a few thousand times.
 */
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const ROUNDS = 3_000;

export async function warmEngine(dynamo: DynamoDBDocumentClient, tableName: string): Promise<void> {
  const padding = 'x'.repeat(800);
  for (let round = 0; round < ROUNDS; round++) {
    const pk = `BENCHWARM#${round % 50}`;
    await dynamo.send(new PutCommand({ TableName: tableName, Item: { PK: pk, SK: `S#${round % 20}`, padding } }));
    await dynamo.send(new GetCommand({ TableName: tableName, Key: { PK: pk, SK: `S#${round % 20}` } }));
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: { PK: `BENCHWARMTX#${round}`, SK: 'A', padding },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          { Put: { TableName: tableName, Item: { PK: `BENCHWARMTX#${round}`, SK: 'B', padding } } },
        ],
      }),
    );
    if (round % 10 === 0)
      await dynamo.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          Limit: 20,
        }),
      );
  }
}
