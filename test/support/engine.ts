/**
 * vitest global setup: one DynamoDB Local for the whole test run, not one per file. Every file's local
 * service then creates a table of its own on it (lib/local/storage.ts), so files stay isolated by table
 * name. The forked test workers inherit DYNAMODB_LOCAL_ENDPOINT from this process.
 */
import { startDynamoDbLocal } from '../../lib/local/dynamodb-local.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const engine = await startDynamoDbLocal();
  process.env.DYNAMODB_LOCAL_ENDPOINT = engine.endpoint;
  return () => engine.close();
}
