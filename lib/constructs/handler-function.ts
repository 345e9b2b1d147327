/**
 * One Lambda function for one handler module of functions/handlers (a route's endpoint, the authorizer
 * or a table stream consumer): an esbuild ESM bundle with the AWS SDK inside (no dependence on the runtime's
 * copy), minified, with source maps, on Node.js 24 / arm64, X-Ray tracing, an explicit log group with
 * retention, and its own role that starts with nothing but writing to that log group. Access to data is added with `grant()` from the route table's `grants`.
 */
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Grants, TableGrant } from '../../functions/routes.ts';
import { table as tableSchema } from '../../functions/store/table.ts';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/metric-names.ts';
import { LAMBDA_NODE_OPTIONS } from '../lambda-runtime.ts';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** CommonJS's module-scope names, for an ESM bundle (its imports renamed so no bundled name can meet them). */
export const BUNDLE_BANNER = [
  "import { createRequire as __bannerCreateRequire } from 'node:module';",
  "import { dirname as __bannerDirname } from 'node:path';",
  "import { fileURLToPath as __bannerFileURLToPath } from 'node:url';",
  'const require = __bannerCreateRequire(import.meta.url);',
  'const __filename = __bannerFileURLToPath(import.meta.url);',
  'const __dirname = __bannerDirname(__filename);',
].join(' ');

/**
 * The esbuild options every function shares. ESM has no `require`, `__filename` or `__dirname`, which the
 * few CommonJS dependencies read (libheif-js, an Emscripten build, reads `__dirname` as it loads); the banner
 * defines them from the bundle's own URL, as CommonJS would. `mainFields` prefers the ESM builds of the SDK
 * so esbuild can drop what a handler does not import. Maps keep only the mappings (no sources): enough for
 * stack traces.
 */
export const bundling: BundlingOptions = {
  format: OutputFormat.ESM,
  target: 'node24',
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  bundleAwsSDK: true,
  mainFields: ['module', 'main'],
  banner: BUNDLE_BANNER,
  logLevel: LogLevel.WARNING,
};

const TABLE_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
// A TransactWriteItems needs the action of each of its parts (ConditionCheckItem for a ConditionCheck).
const TABLE_WRITE = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];
/**
 * Which image objects each bucket grant reaches, with which actions: a read handler only signs downloads
 * of library objects, never of large-file uploads not verified yet (`uploads/`) nor of originals held for
 * the lab (`held/`, domain/renditions.ts heldObjectKey), which only the lab's read (`labRead`) signs; an
 * erasure copies a held item's original from its library key to `held/` and deletes objects under both; a
 * resumable upload assembles its object at its library key; the others work on every object.
 */
const OBJECT_GRANTS: Record<NonNullable<Grants['bucket']>, { actions: string[]; keys: string[] }[]> = {
  read: [{ actions: ['s3:GetObject'], keys: ['library/*'] }],
  labRead: [{ actions: ['s3:GetObject'], keys: ['library/*', 'held/*'] }],
  put: [{ actions: ['s3:PutObject'], keys: ['*'] }],
  delete: [
    { actions: ['s3:GetObject', 's3:DeleteObject'], keys: ['library/*'] },
    { actions: ['s3:PutObject', 's3:DeleteObject'], keys: ['held/*'] },
  ],
  write: [{ actions: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:DeleteObject'], keys: ['*'] }],
  readwrite: [{ actions: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject'], keys: ['*'] }],
  multipart: [
    {
      actions: [
        's3:PutObject',
        's3:ListMultipartUploadParts',
        's3:AbortMultipartUpload',
        's3:GetObject',
        's3:DeleteObject',
      ],
      keys: ['library/*'],
    },
  ],
};

/** The IAM condition that holds table calls to items whose partition key starts with one of `prefixes`. */
export const leadingKeys = (prefixes: readonly string[]) => ({
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) },
});

/** The IAM actions `grants` allows, by resource: the table (and its indexes), the bucket, the bus (objects: OBJECT_GRANTS). */
export function grantedActions(grants: Grants): {
  table: string[];
  bucket: string[];
  bus: string[];
} {
  return {
    table: grants.table ? [...TABLE_READ, ...(grants.table.write ? TABLE_WRITE : [])] : [],
    // A function that reads objects also lists, or S3 answers a read of a missing key with 403, not 404 (NoSuchKey).
    bucket: grants.bucket === 'readwrite' || grants.bucket === 'multipart' ? ['s3:ListBucket'] : [],
    bus: grants.events ? ['events:PutEvents'] : [],
  };
}

export interface HandlerFunctionProps {
  /** Module name under functions/handlers/. */
  handler: string;
  /** Physical name prefix, e.g. `photo-commerce-dev`. */
  namePrefix: string;
  description: string;
  memorySize: number;
  timeout: Duration;
  logRetention: RetentionDays;
  environment?: Record<string, string>;
  /** What this function's bundling does beyond the shared options (e.g. native modules kept outside the bundle). */
  bundling?: Partial<BundlingOptions>;
}

export interface DataResources {
  table: ITable;
  bucket: IBucket;
  bus: IEventBus;
  webhookSecrets: IKey;
  /** The HMAC key the artwork links' daily signing keys are derived from. */
  artworkLinks: IKey;
  /** The webhook deliveries queue (a redelivery sends to it). */
  webhookDeliveries: IQueue;
}

export class HandlerFunction extends Construct {
  /** The module name under functions/handlers/; labels it on the dashboard and in alarm names. */
  readonly handlerName: string;
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    super(scope, id);
    this.handlerName = props.handler;
    const functionName = `${props.namePrefix}-${props.handler}`;
    this.logGroup = new LogGroup(this, 'Logs', {
      logGroupName: `/aws/lambda/${functionName}`,
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${functionName}: its log group plus the route's grants`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      functionName,
      description: props.description,
      entry: `${projectRoot}functions/handlers/${props.handler}.ts`,
      handler: 'handler',
      projectRoot,
      depsLockFilePath: `${projectRoot}package-lock.json`,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      role: this.role,
      bundling: { ...bundling, ...props.bundling },
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        NODE_OPTIONS: LAMBDA_NODE_OPTIONS.join(' '),
        ...props.environment,
      },
    });
  }

  /** Grants exactly what `grants` names (see functions/routes.ts) and sets the environment that goes with it. */
  grant(grants: Grants, data: DataResources): void {
    const actions = grantedActions(grants);
    if (grants.table) this.grantTable(data.table, grants.table);
    if (grants.bucket) {
      this.function.addEnvironment('BUCKET_NAME', data.bucket.bucketName);
      for (const { actions: objectActions, keys } of OBJECT_GRANTS[grants.bucket])
        this.role.addToPrincipalPolicy(
          new PolicyStatement({ actions: objectActions, resources: keys.map((key) => data.bucket.arnForObjects(key)) }),
        );
      if (actions.bucket.length > 0)
        this.role.addToPrincipalPolicy(
          new PolicyStatement({ actions: actions.bucket, resources: [data.bucket.bucketArn] }),
        );
    }
    if (grants.events) this.grantEvents(data.bus);
    if (grants.webhookSecrets) this.grantWebhookSecrets(data.webhookSecrets, grants.webhookSecrets);
    if (grants.webhookDeliveries) this.grantWebhookDeliveries(data.webhookDeliveries);
    if (grants.artworkLinks) this.grantArtworkLinks(data.artworkLinks);
  }

  /** kms:GenerateMac with the artwork links' HMAC key (a day's signing key), and the key in ARTWORK_LINK_KEY_ID. */
  grantArtworkLinks(key: IKey): void {
    this.function.addEnvironment('ARTWORK_LINK_KEY_ID', key.keyArn);
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['kms:GenerateMac'], resources: [key.keyArn] }));
  }

  /** sqs:SendMessage to the webhook deliveries queue, and its URL in WEBHOOK_DELIVERY_QUEUE_URL. */
  grantWebhookDeliveries(queue: IQueue): void {
    this.function.addEnvironment('WEBHOOK_DELIVERY_QUEUE_URL', queue.queueUrl);
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
  }

  /**
   * kms:Encrypt (`seal`) or kms:Decrypt (`open`) with the webhook secrets' key, only with a webhook id as the
   * encryption context, and the key in WEBHOOK_KMS_KEY_ID.
   */
  grantWebhookSecrets(key: IKey, use: 'seal' | 'open'): void {
    this.function.addEnvironment('WEBHOOK_KMS_KEY_ID', key.keyArn);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [use === 'seal' ? 'kms:Encrypt' : 'kms:Decrypt'],
        resources: [key.keyArn],
        conditions: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['WebhookId'] },
          Null: { 'kms:EncryptionContextKeys': 'false' },
        },
      }),
    );
  }

  /** events:PutEvents on the service's bus, and its name in EVENT_BUS_NAME. */
  grantEvents(bus: IEventBus): void {
    this.function.addEnvironment('EVENT_BUS_NAME', bus.eventBusName);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: grantedActions({ events: true }).bus, resources: [bus.eventBusArn] }),
    );
  }

  /**
   * Named actions only (never Scan), on the table and its indexes by name, each statement held by
   * `dynamodb:LeadingKeys` to the grant's partition-key prefixes; `writeActions` narrows the writes.
   */
  grantTable(table: ITable, grant: TableGrant, writeActions: readonly string[] = TABLE_WRITE): void {
    this.function.addEnvironment('TABLE_NAME', table.tableName);
    const indexArns = tableSchema.globalSecondaryIndexes.map((index) => `${table.tableArn}/index/${index.indexName}`);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: TABLE_READ,
        resources: [table.tableArn, ...indexArns],
        conditions: leadingKeys(grant.read),
      }),
    );
    if (grant.write)
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: [...writeActions],
          resources: [table.tableArn],
          conditions: leadingKeys(grant.write),
        }),
      );
  }
}
