/**
 * For the CLIs: point the store modules at the local storage of DATA_DIR (the running `npm start`'s, or
 * an embedded one), with the table and bucket in place. Import store modules only after this.
 */
import { resolve } from 'node:path';
import { ensureTableAndBucket, LOCAL_AWS_ENV, type LocalStorage } from '../lib/local/storage.ts';
import { connectOrStartStorage } from '../lib/local/shared-storage.ts';
import { StartRefused } from '../lib/local/single-start.ts';
import { dataDirFromEnv } from './cli-args.ts';

/** The storage of DATA_DIR; a DATA_DIR held by another process past the wait ends the command with one line. */
async function storageOfDataDir(): Promise<LocalStorage> {
  try {
    return await connectOrStartStorage(resolve(dataDirFromEnv()));
  } catch (error) {
    if (!(error instanceof StartRefused)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

export async function useLocalStore(): Promise<LocalStorage> {
  const storage = await storageOfDataDir();
  if (storage.tableName) process.env.TABLE_NAME = storage.tableName;
  process.env.TABLE_NAME ??= 'photo-commerce';
  process.env.BUCKET_NAME ??= 'photo-commerce-images';
  for (const [name, value] of Object.entries(LOCAL_AWS_ENV)) process.env[name] ??= value;
  process.env.DYNAMODB_ENDPOINT = storage.dynamoEndpoint;
  process.env.S3_ENDPOINT = storage.s3Endpoint;
  await ensureTableAndBucket(storage, process.env.TABLE_NAME, process.env.BUCKET_NAME);
  return storage;
}
