/**
 * The test run's engine pool (lib/local/engine-pool.ts): files share an engine until it has taken its
 * writes, then get the next; an engine nobody leases any more stops; a data directory's table always
 * gets the engine it is on, which is kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BatchWriteItemCommand, CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DYNAMODB_LOCAL_POOL,
  leaseSharedEngine,
  startEnginePool,
  type EnginePool,
} from '../../lib/local/engine-pool.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';

let pool: EnginePool;
let logDir: string;
let runPool: string | undefined;
beforeAll(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'engine-pool-'));
  pool = await startEnginePool(logDir, 50);
  runPool = process.env[DYNAMODB_LOCAL_POOL];
  process.env[DYNAMODB_LOCAL_POOL] = pool.url;
}, 60_000);
afterAll(async () => {
  process.env[DYNAMODB_LOCAL_POOL] = runPool;
  await pool?.close();
  rmSync(logDir, { recursive: true, force: true });
});

async function write(endpoint: string, table: string, items: number): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: 'POOLTEST', secretAccessKey: 'POOLTEST' },
  });
  await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
    }),
  );
  for (let done = 0; done < items; done += 25)
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [table]: Array.from({ length: 25 }, (_, index) => ({
            PutRequest: { Item: { PK: { S: `${done + index}` } } },
          })),
        },
      }),
    );
  client.destroy();
}

it('hands out one engine until it has taken its writes, then the next; stops the unused one; keeps a data directory’s', async () => {
  const first = await leaseSharedEngine();
  const pinned = await leaseSharedEngine('photo-commerce-datadir');
  expect(pinned?.endpoint).toBe(first?.endpoint);
  await write(first?.endpoint as string, 'first-table', 50);

  const second = await leaseSharedEngine();
  expect(second?.endpoint).not.toBe(first?.endpoint);
  await first?.release();
  await pinned?.release();
  // The first engine still holds the data directory's table: it is kept, and found again.
  expect(pool.summary()).toMatchObject({ engines: 2, running: 2, itemsWritten: 50 });
  const again = await leaseSharedEngine('photo-commerce-datadir');
  expect(again?.endpoint).toBe(first?.endpoint);
  await again?.release();

  await write(second?.endpoint as string, 'second-table', 50);
  const third = await leaseSharedEngine();
  await second?.release();
  // The second engine, no longer current and leased by nobody, stopped.
  expect(pool.summary()).toMatchObject({ engines: 3, running: 2, itemsWritten: 100 });
  await third?.release();
}, 60_000);
