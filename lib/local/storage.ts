/**
 * Local stand-ins for DynamoDB and S3: dynalite and s3rver, embedded in this process and reached over
 * loopback HTTP by the real AWS SDK clients. With a data directory they persist (leveldb files and
 * plain files); without one DynamoDB is in memory and S3 lives in a temporary directory.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo, Server } from 'node:net';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateBucketCommand,
  HeadBucketCommand,
  NotFound,
  PutBucketCorsCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { table } from '../../functions/store/table.ts';
import { multipartMiddleware } from './s3-multipart.ts';

export interface LocalStorage {
  dynamoEndpoint: string;
  s3Endpoint: string;
  close(): Promise<void>;
}

export const LOCAL_AWS_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
} as const;

const clientOptions = (endpoint: string) => ({
  endpoint,
  region: LOCAL_AWS_ENV.AWS_REGION,
  credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
});

/** A client of the local DynamoDB of its own, for what stands in for AWS itself (the TTL process), not the service. */
export const localDynamoClient = (storage: Pick<LocalStorage, 'dynamoEndpoint'>) =>
  new DynamoDBClient(clientOptions(storage.dynamoEndpoint));

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startLocalStorage(options: {
  dataDir?: string;
  dynamoPort?: number;
  s3Port?: number;
}): Promise<LocalStorage> {
  const dynamoPath = options.dataDir ? join(options.dataDir, 'dynamodb') : undefined;
  if (dynamoPath) mkdirSync(dynamoPath, { recursive: true });
  const dynamo = dynalite({
    ...(dynamoPath ? { path: dynamoPath } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  const dynamoPort = await listen(dynamo, options.dynamoPort ?? 0);

  const s3Dir = options.dataDir ? join(options.dataDir, 's3') : mkdtempSync(join(tmpdir(), 'photo-commerce-s3-'));
  mkdirSync(s3Dir, { recursive: true });
  removeTornObjects(s3Dir);
  const s3rver = new S3rver({
    address: '127.0.0.1',
    port: options.s3Port ?? 0,
    directory: s3Dir,
    silent: true,
    configureBuckets: [],
  });
  // s3rver lacks ListParts and AbortMultipartUpload and checks nothing on completion: lib/local/s3-multipart.ts.
  const multipartDir = options.dataDir
    ? join(options.dataDir, 's3-multipart')
    : mkdtempSync(join(tmpdir(), 'photo-commerce-s3-multipart-'));
  s3rver.middleware.splice(s3rver.middleware.length - 1, 0, multipartMiddleware(multipartDir));
  const s3Address = await s3rver.run();

  return {
    dynamoEndpoint: `http://127.0.0.1:${dynamoPort}`,
    s3Endpoint: `http://127.0.0.1:${s3Address.port}`,
    async close() {
      await s3rver.close();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
      if (!options.dataDir) for (const dir of [s3Dir, multipartDir]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** s3rver's files of an object: its content, the content's MD5, and its metadata, written in that order. */
const OBJECT_SUFFIX = '._S3rver_object';
const objectFiles = (objectPath: string) => [
  objectPath,
  `${objectPath}.md5`,
  `${objectPath.slice(0, -OBJECT_SUFFIX.length)}._S3rver_metadata.json`,
];

/**
 * Removes the objects a kill left half-written. s3rver writes an object's files one after the other and
 * answers the PUT after the last (the metadata); a process killed before that leaves an object S3 would
 * not have (its PUT is atomic and was never acknowledged), and an empty or cut metadata file fails every
 * listing of the bucket with a 500, HEAD bucket included (s3rver answers it with a listing).
 */
function removeTornObjects(s3Dir: string): void {
  for (const name of readdirSync(s3Dir, { recursive: true, encoding: 'utf8' })) {
    if (!name.endsWith(OBJECT_SUFFIX)) continue;
    const files = objectFiles(join(s3Dir, name));
    try {
      JSON.parse(readFileSync(files[2] as string, 'utf8'));
    } catch {
      for (const path of files) rmSync(path, { force: true });
    }
  }
}

/** Creates the single table (from functions/store/table.ts) and the bucket when they are missing. */
export async function ensureTableAndBucket(
  storage: Pick<LocalStorage, 'dynamoEndpoint' | 's3Endpoint'>,
  tableName: string,
  bucketName: string,
): Promise<void> {
  const dynamo = localDynamoClient(storage);
  try {
    await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    const attributes = new Set<string>([
      table.partitionKey,
      table.sortKey,
      ...table.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
    ]);
    await dynamo.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: table.partitionKey, KeyType: 'HASH' },
          { AttributeName: table.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: table.globalSecondaryIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
    await dynamo
      .send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: table.timeToLiveAttribute, Enabled: true },
        }),
      )
      .catch(() => {
        // dynalite does not implement TTL: lib/local/ttl.ts stands in for it, and reads treat expired items as missing anyway.
      });
  } finally {
    dynamo.destroy();
  }
  const s3 = new S3Client({ ...clientOptions(storage.s3Endpoint), forcePathStyle: true });
  try {
    // Created only when S3 says it is missing: any other failure is that failure, not a missing bucket.
    const missing = await s3.send(new HeadBucketCommand({ Bucket: bucketName })).then(
      () => false,
      (error: unknown) => {
        if (error instanceof NotFound) return true;
        throw error;
      },
    );
    if (missing) await s3.send(new CreateBucketCommand({ Bucket: bucketName })).catch(alreadyCreated);
    // Browsers PUT resumable upload parts straight to the bucket and read the ETag (in AWS: lib/constructs/data.ts,
    // for the site's origin). Locally any origin: every page that can reach this loopback port is a local one.
    await s3.send(
      new PutBucketCorsCommand({
        Bucket: bucketName,
        CORSConfiguration: {
          CORSRules: [
            {
              AllowedOrigins: ['*'],
              AllowedMethods: ['PUT', 'POST'],
              AllowedHeaders: ['*'],
              ExposeHeaders: ['ETag'],
              MaxAgeSeconds: 600,
            },
          ],
        },
      }),
    );
  } finally {
    s3.destroy();
  }
}

/** Another process created the bucket since the HEAD: what the caller wanted. */
function alreadyCreated(error: unknown): void {
  if (
    error instanceof S3ServiceException &&
    (error.name === 'BucketAlreadyOwnedByYou' || error.name === 'BucketAlreadyExists')
  )
    return;
  throw error;
}

/** Where a running `npm start` tells the CLIs its storage endpoints, so they share its data. */
const endpointsFile = (dataDir: string) => join(dataDir, 'local-endpoints.json');

export function publishEndpoints(dataDir: string, storage: Pick<LocalStorage, 'dynamoEndpoint' | 's3Endpoint'>): void {
  writeFileSync(
    endpointsFile(dataDir),
    JSON.stringify({ pid: process.pid, dynamoEndpoint: storage.dynamoEndpoint, s3Endpoint: storage.s3Endpoint }),
  );
}

export function withdrawEndpoints(dataDir: string): void {
  rmSync(endpointsFile(dataDir), { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * For the CLIs: the storage of the running `npm start` on the same DATA_DIR if there is one (its leveldb
 * is locked by that process), else an embedded one on DATA_DIR for the duration of the command.
 */
export async function connectOrStartStorage(dataDir: string): Promise<LocalStorage> {
  try {
    const published = JSON.parse(readFileSync(endpointsFile(dataDir), 'utf8')) as {
      pid: number;
      dynamoEndpoint: string;
      s3Endpoint: string;
    };
    if (isAlive(published.pid))
      return { dynamoEndpoint: published.dynamoEndpoint, s3Endpoint: published.s3Endpoint, close: async () => {} };
  } catch {
    // No server running on this DATA_DIR.
  }
  return startLocalStorage({ dataDir });
}
