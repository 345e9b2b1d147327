/**
 * Where the service keeps things: the single DynamoDB table (schema from functions/store/table.ts, the
 * same one the local stand-in creates), the image bucket with its access-log bucket, and the EventBridge
 * bus for domain events, and the KMS key that encrypts webhook signing secrets. Customer data is retained
 * when the stack is deleted.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { table as tableSchema } from '../../functions/store/table.ts';

/** Key prefix of presigned large-file uploads that are not confirmed yet (functions/store/image-object-store.ts). */
export const UNCONFIRMED_UPLOAD_PREFIX = 'uploads/';

export interface DataProps {
  namePrefix: string;
  /** Browser origins that may POST presigned uploads and PUT resumable upload parts straight to the bucket. */
  corsAllowedOrigins: string[];
  /** The checkout and product builder site's origin (from CHECKOUT_URL): its upload page PUTs parts. */
  siteOrigin: string;
}

export class Data extends Construct {
  readonly table: Table;
  readonly bucket: Bucket;
  readonly bus: EventBus;
  /** Encrypts webhook signing secrets (functions/webhooks/webhook-secrets.ts); kept with the table that holds them. */
  readonly webhookSecrets: Key;
  readonly artworkLinks: Key;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);

    const string = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new Table(this, 'Table', {
      partitionKey: string(tableSchema.partitionKey),
      sortKey: string(tableSchema.sortKey),
      timeToLiveAttribute: tableSchema.timeToLiveAttribute,
      // What the stream carries, as locally (functions/store/table.ts).
      stream: StreamViewType[tableSchema.streamViewType],
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableSchema.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: string(index.partitionKey),
        sortKey: string(index.sortKey),
      });
    }

    const accessLogs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'ExpireAccessLogs', expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new Bucket(this, 'Images', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'images/',
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        // After a day (S3 rounds up to the next midnight UTC): never before a resumable upload expires
        // (MULTIPART_EXPIRY_SECONDS, 24 h by default; the sweeper aborts it an hour after that).
        { id: 'AbortIncompleteMultipartUploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // A presigned upload is valid for minutes; what was never confirmed is not in the library and goes.
        { id: 'ExpireUnconfirmedUploads', prefix: UNCONFIRMED_UPLOAD_PREFIX, expiration: Duration.days(1) },
      ],
      cors: [
        ...(props.corsAllowedOrigins.length > 0
          ? [
              {
                allowedOrigins: props.corsAllowedOrigins,
                allowedMethods: [HttpMethods.POST],
                allowedHeaders: ['*'],
                maxAge: 600,
              },
            ]
          : []),
        // A browser PUTs the parts of a resumable upload to presigned URLs and must read each answer's ETag,
        // which S3 exposes to scripts only when the rule names it.
        {
          allowedOrigins: [...new Set([props.siteOrigin, ...props.corsAllowedOrigins])],
          allowedMethods: [HttpMethods.PUT],
          allowedHeaders: ['*'],
          exposedHeaders: ['ETag'],
          maxAge: 600,
        },
      ],
    });

    this.bus = new EventBus(this, 'Bus', {
      eventBusName: `${props.namePrefix}-events`,
      description: 'Domain events: BasketCheckedOut, OrderCreated, OrderStatusChanged',
    });

    // Only the webhook functions may use it, each for one direction: their roles name it (HandlerFunction.grant).
    this.webhookSecrets = new Key(this, 'WebhookSecrets', {
      alias: `${props.namePrefix}-webhook-secrets`,
      description: 'Encrypts webhook signing secrets; the encryption context names the webhook',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // An HMAC key: the artwork links' daily signing keys are its MACs of each day's name (store/artwork-link-keys.ts),
    // so the signing key changes every day by itself. KMS rotates no HMAC key; docs/security.md says how to replace it.
    this.artworkLinks = new Key(this, 'ArtworkLinks', {
      alias: `${props.namePrefix}-artwork-links`,
      description: "Derives the daily keys that sign the lab's artwork DownloadLinks",
      keySpec: KeySpec.HMAC_256,
      keyUsage: KeyUsage.GENERATE_VERIFY_MAC,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
