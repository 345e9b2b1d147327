/**
 * Snapshots of everything the service has stored, read straight from the local DynamoDB (a Scan: fine in a
 * test, forbidden in functions/) and the local S3 bucket, to prove that a refused request changed nothing.
 */
import { existsSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { LOCAL_AWS_ENV, type LocalStorage } from '../../lib/local/storage.ts';

export interface StoreSnapshot {
  /** Items by `PK|SK`, as DynamoDB JSON. */
  items: Map<string, Record<string, AttributeValue>>;
  /** S3 objects by key: `<size>:<etag>`. */
  objects: Map<string, string>;
}

const clientOptions = (endpoint: string) => ({
  endpoint,
  region: LOCAL_AWS_ENV.AWS_REGION,
  credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
});

const readers = new WeakMap<object, { dynamo: DynamoDBClient; s3: S3Client }>();

function readersFor(storage: Pick<LocalStorage, 'dynamoEndpoint' | 's3Endpoint'>) {
  let found = readers.get(storage);
  if (!found) {
    found = {
      dynamo: new DynamoDBClient(clientOptions(storage.dynamoEndpoint)),
      s3: new S3Client({ ...clientOptions(storage.s3Endpoint), forcePathStyle: true }),
    };
    readers.set(storage, found);
  }
  return found;
}

export async function listObjectKeys(
  storage: Pick<LocalStorage, 'dynamoEndpoint' | 's3Endpoint'>,
  bucket = process.env.BUCKET_NAME ?? 'photo-commerce-images',
): Promise<Map<string, string>> {
  const { s3 } = readersFor(storage);
  const objects = new Map<string, string>();
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    for (const object of page.Contents ?? []) objects.set(object.Key as string, `${object.Size}:${object.ETag}`);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}

/**
 * The object key of an item's image, `library/<anonymous user>/<item guid>`; undefined when it is not stored.
 * `held`: also under `held/`, where a held erasure keeps it for the lab.
 */
export async function libraryObjectKeyOf(
  storage: Pick<LocalStorage, 'dynamoEndpoint' | 's3Endpoint'>,
  itemGuid: string,
  options: { held?: boolean } = {},
): Promise<string | undefined> {
  const pattern = new RegExp(`^${options.held ? '(held/)?' : ''}library/[0-9a-f]{32}/${itemGuid}$`);
  return [...(await listObjectKeys(storage)).keys()].find((key) => pattern.test(key));
}

/**
 * Everything stored, once the events published so far are handled (when the service can say): renditions
 * are written after a request has answered, and are no change of the request that follows.
 */
export async function snapshotStore(
  service: { storage: Pick<LocalStorage, 'dynamoEndpoint' | 's3Endpoint'>; drainEvents?: () => Promise<void> },
  tableName = process.env.TABLE_NAME ?? 'photo-commerce',
): Promise<StoreSnapshot> {
  await service.drainEvents?.();
  const { dynamo } = readersFor(service.storage);
  const items = new Map<string, Record<string, AttributeValue>>();
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: startKey }),
    );
    for (const item of page.Items ?? []) items.set(`${item.PK?.S}|${item.SK?.S}`, item);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { items, objects: await listObjectKeys(service.storage) };
}

/** What changed between two snapshots, one line per item or object; `ignore` skips volatile items by key. */
export function storeDiff(
  before: StoreSnapshot,
  after: StoreSnapshot,
  ignore: (key: string) => boolean = () => false,
): string[] {
  const changes: string[] = [];
  const compare = <V>(kind: string, a: Map<string, V>, b: Map<string, V>) => {
    for (const [key, value] of b) {
      if (ignore(key)) continue;
      if (!a.has(key)) changes.push(`${kind} added: ${key}`);
      // Compared as values: DynamoDB may answer an item rewritten to the same values with its attributes reordered.
      else if (!isDeepStrictEqual(a.get(key), value)) changes.push(`${kind} changed: ${key}`);
    }
    for (const key of a.keys()) if (!ignore(key) && !b.has(key)) changes.push(`${kind} removed: ${key}`);
  };
  compare('item', before.items, after.items);
  compare('object', before.objects, after.objects);
  return changes;
}

/** Whether a route's handler has been written yet (routes are listed before their handlers exist). */
export const routeExists = (handler: string): boolean =>
  existsSync(new URL(`../../functions/handlers/${handler}.ts`, import.meta.url));
