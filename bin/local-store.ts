/**
 * For the CLIs: point the store modules at the local storage of DATA_DIR (the running `npm start`'s, or
 * an embedded one), with the table and bucket in place. Import store modules only after this.
 */
import { resolve } from 'node:path';
import { connectOrStartStorage, ensureTableAndBucket, LOCAL_AWS_ENV, type LocalStorage } from '../lib/local/storage.ts';
import { dataDirFromEnv } from './cli-args.ts';

export async function useLocalStore(): Promise<LocalStorage> {
  const storage = await connectOrStartStorage(resolve(dataDirFromEnv()));
  if (storage.tableName) process.env.TABLE_NAME = storage.tableName;
  process.env.TABLE_NAME ??= 'photo-commerce';
  process.env.BUCKET_NAME ??= 'photo-commerce-images';
  for (const [name, value] of Object.entries(LOCAL_AWS_ENV)) process.env[name] ??= value;
  process.env.DYNAMODB_ENDPOINT = storage.dynamoEndpoint;
  process.env.S3_ENDPOINT = storage.s3Endpoint;
  await ensureTableAndBucket(storage, process.env.TABLE_NAME, process.env.BUCKET_NAME);
  return storage;
}
