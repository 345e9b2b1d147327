/**
 * The library sweeper: the table's stream feeds DynamoDB's TTL deletions of ingest intents, pending and
 * resumable uploads and erasure intents to a function (functions/handlers/sweep-library-leftovers.ts) that
 * removes the objects an uncommitted push, pull or upload left behind (a resumable upload's parts
 * included), or an erasure did not delete itself. A stream consumer (stream-consumer.ts) with the sweeper's
 * grants.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { SWEEPER_STREAM_FILTER } from '../../functions/contracts/library-sweep.ts';
import { sweeperTableGrant } from '../../functions/routes.ts';
import { SWEEPER_COUNTS } from '../../functions/shared/metric-names.ts';
import { ROUTELESS_FUNCTIONS } from './routeless-functions.ts';
import { nagArnOf } from './dead-letters.ts';
import { StreamConsumer } from './stream-consumer.ts';

export interface LibrarySweeperProps {
  namePrefix: string;
  table: ITable;
  bucket: IBucket;
  logRetention: RetentionDays;
}

export class LibrarySweeper extends StreamConsumer {
  constructor(scope: Construct, id: string, props: LibrarySweeperProps) {
    super(scope, id, {
      ...props,
      name: 'library-sweeper',
      function: ROUTELESS_FUNCTIONS.sweeper,
      filter: SWEEPER_STREAM_FILTER,
      // Nobody waits for a sweep (TTL itself deletes within days): gather up to 10 s, and give a failing
      // leftover a few tries before a person looks at it; the sweep is safe to repeat.
      mapping: {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 25,
        maxBatchingWindow: Duration.seconds(10),
        retryAttempts: 5,
      },
      monitoring: {
        title: 'Library sweeper',
        counts: SWEEPER_COUNTS,
        counted: 'uncommitted requests and items removed',
        onFailure:
          'The library sweeper failed on a batch of expired intents; the stream retries it (see its log group).',
        onDeadLetter:
          'Expired library intents the sweeper gave up on after its retries: each message names a stream batch. docs/operations.md, Alarms: re-run the sweep for it.',
      },
    });
    // GetItem of the owner: whether the request committed; an ended artwork hold's releases (routes.ts).
    this.handlerFunction.grantTable(props.table, sweeperTableGrant);
    this.handlerFunction.function.addEnvironment('BUCKET_NAME', props.bucket.bucketName);
    this.handlerFunction.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:DeleteObject'],
        resources: [
          props.bucket.arnForObjects('library/*'),
          props.bucket.arnForObjects('uploads/*'),
          props.bucket.arnForObjects('held/*'),
        ],
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

    Validations.of(this.handlerFunction.role).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::${nagArnOf(props.bucket)}/library/*]`,
        reason:
          'Library objects are keyed by generated guids (library/<anonymous user>/<item>); the sweeper deletes those of uncommitted requests only.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${nagArnOf(props.bucket)}/uploads/*]`,
        reason: 'Staging objects of presigned uploads are keyed by generated item guids (uploads/<item>).',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${nagArnOf(props.bucket)}/held/*]`,
        reason: 'Originals held for the lab are keyed as their library objects (held/library/<anonymous user>/<item>).',
      },
    );
  }
}
