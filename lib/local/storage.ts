/**
 * Local DynamoDB and S3: Amazon DynamoDB Local (AWS's own engine, a JVM child process) and s3rver
 * (embedded in this process), reached over loopback HTTP by the real AWS SDK clients. With a data
 * directory they persist (DynamoDB Local's SQLite file and plain files); without one DynamoDB is in memory
 * and S3 lives in a temporary directory.
 *
 * A test run shares a few engines between its files (lib/local/engine-pool.ts); a storage started then
 * leases one and uses it with a table of its own instead of starting another.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
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
import { awsCallLogDir, recordS3Request } from './aws-call-log.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.ts';
import { startDynamoDbRecorder } from './dynamodb-recorder.ts';
import { leaseSharedEngine } from './engine-pool.ts';
import type { S3CallRecorder } from './s3-calls.ts';
import { s3Front } from './s3-front.ts';
import { installMultipart } from './s3-multipart.ts';

export interface LocalStorage {
  dynamoEndpoint: string;
  s3Endpoint: string;
  /** The table to use on a shared engine (one per storage); undefined: the service's TABLE_NAME. */
  tableName?: string;
  /** Set when this is the storage of a running `npm start` (connectOrStartStorage): its stream consumers run there. */
  serverPid?: number;
  close(): Promise<void>;
}

/** On a shared engine: a table per data directory (restarts and CLIs find it again), else a new one. */
const sharedEngineTable = (dataDir: string | undefined) =>
  `photo-commerce-${dataDir ? createHash('sha256').update(dataDir).digest('hex').slice(0, 16) : randomBytes(8).toString('hex')}`;

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

export async function startLocalStorage(options: {
  dataDir?: string;
  dynamoPort?: number;
  s3Port?: number;
  /** Told of every S3 call whose signature verified (lib/local/s3-calls.ts), for IAM checks. */
  onS3Request?: S3CallRecorder;
}): Promise<LocalStorage> {
  const tableName = sharedEngineTable(options.dataDir);
  const shared = await leaseSharedEngine(options.dataDir ? tableName : undefined);
  const engine = shared
    ? undefined
    : await startDynamoDbLocal({
        ...(options.dataDir ? { dbPath: join(options.dataDir, 'dynamodb-local') } : {}),
        ...(options.dynamoPort ? { port: options.dynamoPort } : {}),
      });
  // Calls recorded for the IAM check (AWS_CALL_LOG_DIR): the clients reach an engine of this storage's
  // own through the recorder. A shared engine is already behind one of the pool's.
  const logDir = awsCallLogDir();
  const recorder = engine && logDir ? await startDynamoDbRecorder(engine.endpoint, logDir) : undefined;

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
  // Bodies wait here while they are verified; a kill leaves at most a few behind, removed at the next start.
  const incomingDir = join(multipartDir, 'incoming');
  rmSync(incomingDir, { recursive: true, force: true });
  mkdirSync(incomingDir, { recursive: true });
  // The front (signatures, policies, digests) runs before the multipart stand-in and s3rver's router.
  s3rver.middleware.splice(
    s3rver.middleware.length - 1,
    0,
    s3Front({ incomingDir, onRequest: options.onS3Request ?? (awsCallLogDir() ? recordS3Request : undefined) }),
  );
  installMultipart(s3rver, multipartDir);
  const s3Address = await s3rver.run();

  return {
    dynamoEndpoint: shared?.endpoint ?? recorder?.endpoint ?? (engine as DynamoDbLocal).endpoint,
    s3Endpoint: `http://127.0.0.1:${s3Address.port}`,
    ...(shared ? { tableName } : {}),
    async close() {
      await s3rver.close();
      await recorder?.close();
      await engine?.close();
      await shared?.release();
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
    const created = await dynamo
      .send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamViewType },
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
      )
      .then(
        () => true,
        (raced: unknown) => {
          // Another process (a CLI beside the server) created it since the describe: what the caller wanted.
          if (raced instanceof ResourceInUseException) return false;
          throw raced;
        },
      );
    // DynamoDB Local accepts the setting but deletes nothing: lib/local/ttl.ts stands in for TTL's deletions.
    if (created)
      await dynamo.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: table.timeToLiveAttribute, Enabled: true },
        }),
      );
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
