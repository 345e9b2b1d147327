/**
 * The library sweeper: the table's stream feeds DynamoDB's TTL deletions of ingest intents, pending
 * and resumable uploads to a function (functions/handlers/sweep-library-leftovers.ts) that removes what an uncommitted
 * push, pull or upload left behind. Records that fail after the retries go to a dead-letter queue, which
 * an alarm watches (Monitoring).
 */
import { Duration, RemovalPolicy, Validations, type CfnElement, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SWEEPER_STREAM_FILTER } from '../../functions/contracts/library-sweep.ts';
import { sweeperTableGrant } from '../../functions/routes.ts';
import { HandlerFunction, ROUTELESS_FUNCTIONS } from './handler-function.ts';

export interface LibrarySweeperProps {
  namePrefix: string;
  table: ITable;
  bucket: IBucket;
  logRetention: RetentionDays;
}

export class LibrarySweeper extends Construct {
  readonly handlerFunction: HandlerFunction;
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: LibrarySweeperProps) {
    super(scope, id);
    this.deadLetters = new Queue(this, 'DeadLetters', {
      queueName: `${props.namePrefix}-library-sweeper-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.handlerFunction = new HandlerFunction(this, 'Function', {
      ...ROUTELESS_FUNCTIONS.sweeper,
      namePrefix: props.namePrefix,
      logRetention: props.logRetention,
    });
    // GetItem of the owner, DeleteItem of items and builder links: it never writes.
    this.handlerFunction.grantTable(props.table, sweeperTableGrant, ['dynamodb:DeleteItem']);
    this.handlerFunction.function.addEnvironment('BUCKET_NAME', props.bucket.bucketName);
    this.handlerFunction.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:DeleteObject'],
        resources: [props.bucket.arnForObjects('library/*'), props.bucket.arnForObjects('uploads/*')],
      }),
    );
    // A resumable upload never completed: its parts go with its S3 multipart upload (under library/).
    this.handlerFunction.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:AbortMultipartUpload'],
        resources: [props.bucket.arnForObjects('library/*')],
      }),
    );
    this.handlerFunction.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [props.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': ['library/*'] } },
      }),
    );

    this.handlerFunction.function.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 25,
        maxBatchingWindow: Duration.seconds(10),
        retryAttempts: 5,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.deadLetters),
        filters: [FilterCriteria.filter(SWEEPER_STREAM_FILTER)],
      }),
    );

    const dlqOfItsOwn =
      "This queue is the dead-letter destination of the sweeper's stream mapping; a dead-letter queue of its own would only move the same records once more.";
    Validations.of(this.deadLetters).acknowledge(
      { id: 'AwsSolutions-SQS3', reason: dlqOfItsOwn },
      { id: 'Serverless-SQSRedrivePolicy', reason: dlqOfItsOwn },
    );
    Validations.of(this.handlerFunction.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        "The sweeper is invoked by its stream mapping, never asynchronously; failed batches go to the mapping's on-failure destination (this construct's dead-letter queue), which a function-level DLQ would never receive.",
    });
    const arnOf = (resource: ITable | IBucket) =>
      `<${Stack.of(this).getLogicalId(resource.node.defaultChild as CfnElement)}.Arn>`;
    Validations.of(this.handlerFunction.role).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'X-Ray PutTraceSegments/PutTelemetryRecords and dynamodb:ListStreams do not support resource-level permissions; AWS documents Resource "*" for them.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${arnOf(props.table)}/stream/*]`,
        reason:
          "The stream ARN carries a creation timestamp that is known only after deployment; the grant is the one table's streams.",
      },
      {
        id: `AwsSolutions-IAM5[Resource::${arnOf(props.bucket)}/library/*]`,
        reason:
          'Library objects are keyed by generated guids (library/<anonymous user>/<item>); the sweeper deletes those of uncommitted requests only.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${arnOf(props.bucket)}/uploads/*]`,
        reason: 'Staging objects of presigned uploads are keyed by generated item guids (uploads/<item>).',
      },
    );
  }
}
