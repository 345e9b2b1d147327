/**
 * `npx node test/bench/engine-latency.ts`: the per-call latency of the local DynamoDB engine (DynamoDB
 * Local) beside dynalite's, the stand-in it replaced, measured in one run on the same machine with the same
 * SDK client settings: warm GetItem, PutItem, a Query of 50 items, and (DynamoDB Local only: dynalite has
 * none) a TransactWriteItems of two puts. dynalite is not a dependency of the project any more; for the
 * comparison install it beside it for one run: `npm install --no-save dynalite && npx node test/bench/engine-latency.ts`.
 * Without it only DynamoDB Local is measured.
 */
import { createRequire } from 'node:module';
import type { AddressInfo, Server } from 'node:net';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../../lib/local/dynamodb-local.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';

const WARMUP = 1_000;
const CALLS = 2_000;
const TABLE = 'latency';

interface Engine {
  name: string;
  endpoint: string;
  transactions: boolean;
  close(): Promise<void>;
}

async function dynalite(): Promise<Engine | undefined> {
  let factory: (options: object) => Server;
  try {
    factory = createRequire(import.meta.url)('dynalite') as (options: object) => Server;
  } catch {
    return undefined;
  }
  const server = factory({ createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name: 'dynalite',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    transactions: false,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function measure(call: () => Promise<unknown>): Promise<{ median: number; p99: number }> {
  for (let i = 0; i < WARMUP; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function run(engine: Engine): Promise<Record<string, { median: number; p99: number } | undefined>> {
  const client = new DynamoDBClient({
    endpoint: engine.endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'PK', AttributeType: 'S' },
        { AttributeName: 'SK', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
    }),
  );
  const item = (pk: string, sk: string) => ({ PK: { S: pk }, SK: { S: sk }, payload: { S: 'x'.repeat(400) } });
  for (let i = 0; i < 50; i++)
    await client.send(new PutItemCommand({ TableName: TABLE, Item: item('user', `ITEM#${i}`) }));
  let n = 0;
  const results = {
    GetItem: await measure(() =>
      client.send(
        new GetItemCommand({ TableName: TABLE, Key: { PK: { S: 'user' }, SK: { S: 'ITEM#7' } }, ConsistentRead: true }),
      ),
    ),
    PutItem: await measure(() => client.send(new PutItemCommand({ TableName: TABLE, Item: item('put', `P#${n++}`) }))),
    'Query, 50 items': await measure(() =>
      client.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'user' } },
          ConsistentRead: true,
        }),
      ),
    ),
    'TransactWriteItems, 2 puts': engine.transactions
      ? await measure(() =>
          client.send(
            new TransactWriteItemsCommand({
              TransactItems: [
                {
                  Put: {
                    TableName: TABLE,
                    Item: item('tx', `A#${n}`),
                    ConditionExpression: 'attribute_not_exists(PK)',
                  },
                },
                { Put: { TableName: TABLE, Item: item('tx', `B#${n++}`) } },
              ],
            }),
          ),
        )
      : undefined,
  };
  client.destroy();
  return results;
}

const engines: Engine[] = [];
const local = await startDynamoDbLocal();
engines.push({ name: 'DynamoDB Local', endpoint: local.endpoint, transactions: true, close: () => local.close() });
const lite = await dynalite();
if (lite) engines.push(lite);
try {
  const measured: { engine: Engine; results: Awaited<ReturnType<typeof run>> }[] = [];
  for (const engine of engines) measured.push({ engine, results: await run(engine) });
  const operations = Object.keys(measured[0]!.results);
  const format = (value?: { median: number; p99: number }) =>
    value ? `${value.median.toFixed(2)} / ${value.p99.toFixed(2)}` : 'not supported';
  process.stdout.write(
    `Warm per-call latency, ms, median / p99 of ${CALLS} sequential calls after ${WARMUP} warm-up calls, one client, loopback:\n\n` +
      `| operation | ${measured.map(({ engine }) => engine.name).join(' | ')} |\n|---|${measured.map(() => '---|').join('')}\n` +
      operations
        .map(
          (operation) => `| ${operation} | ${measured.map(({ results }) => format(results[operation])).join(' | ')} |`,
        )
        .join('\n') +
      '\n',
  );
} finally {
  for (const engine of engines) await engine.close();
}
