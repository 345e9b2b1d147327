/**
 * The renditions pipeline: an EventBridge rule sends every `LibraryItemsAdded` event of the service's bus
 * to a queue, whose consumer (functions/handlers/make-renditions.ts, arm64) makes the Thumbnail and
 * Preview of each item. A message is delivered at most RENDITION_MAX_ATTEMPTS times (the last delivery
 * records Failed instead of failing again) and then moves to a dead-letter queue, which an alarm watches.
 *
 * sharp is a native module: it stays outside the esbuild bundle and is installed into the asset for the
 * function's platform (linux, arm64, glibc), whatever the build machine is, as sharp's install docs say:
 * `npm install --os=linux --cpu=arm64 --libc=glibc sharp`. No symlinks (`--no-bin-links`): Lambda assets
 * are zip files. test/infra/bundling.test.ts checks the binaries in the synthesized asset.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Duration, Names, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Rule, type IEventBus } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RENDITIONS_SUBSCRIPTION } from '../../functions/contracts/library-events.ts';
import { renditionsTableGrant } from '../../functions/routes.ts';
import { SERVICE_NAME } from '../../functions/shared/metric-names.ts';
import { HandlerFunction, ROUTELESS_FUNCTIONS } from './handler-function.ts';
import { deadLetterQueue, nagArnOf } from './dead-letters.ts';

/** The sharp release the project is locked to: the asset gets the same one, for the function's platform. */
const SHARP_VERSION = (
  JSON.parse(
    readFileSync(join(dirname(createRequire(import.meta.url).resolve('sharp')), '..', 'package.json'), 'utf8'),
  ) as { version: string }
).version;

/** The install sharp documents for another platform than the build machine's. */
export const SHARP_INSTALL = [
  'npm install --no-save --no-package-lock --no-audit --no-fund --ignore-scripts --no-bin-links --omit=dev',
  '--os=linux --cpu=arm64 --libc=glibc',
  `sharp@${SHARP_VERSION}`,
].join(' ');

export interface RenditionsProps {
  namePrefix: string;
  table: ITable;
  bucket: IBucket;
  bus: IEventBus;
  logRetention: RetentionDays;
}

export class Renditions extends Construct {
  readonly handlerFunction: HandlerFunction;
  readonly queue: Queue;
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: RenditionsProps) {
    super(scope, id);
    const spec = ROUTELESS_FUNCTIONS.renditions;
    this.deadLetters = deadLetterQueue(
      this,
      `${props.namePrefix}-renditions-dlq`,
      'the renditions queue (after maxReceiveCount deliveries) and of its rule target',
    );
    this.queue = new Queue(this, 'Queue', {
      queueName: `${props.namePrefix}-renditions`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS's advice for a Lambda source: six times the function's timeout, so a slow batch is not handed out twice.
      visibilityTimeout: Duration.seconds(spec.timeout.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: RENDITIONS_SUBSCRIPTION.maxReceiveCount },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    new Rule(this, 'ItemsAdded', {
      ruleName: `${props.namePrefix}-renditions`,
      description: 'LibraryItemsAdded -> the renditions queue',
      eventBus: props.bus,
      eventPattern: { source: [SERVICE_NAME], detailType: [RENDITIONS_SUBSCRIPTION.detailType] },
      // An event EventBridge cannot hand to the queue (after its own retries) goes to the same dead letters.
      targets: [new SqsQueue(this.queue, { deadLetterQueue: this.deadLetters })],
    });

    this.handlerFunction = new HandlerFunction(this, 'Function', {
      ...spec,
      namePrefix: props.namePrefix,
      logRetention: props.logRetention,
      // The last delivery the queue makes is the one that records Failed.
      environment: { RENDITION_MAX_ATTEMPTS: String(RENDITIONS_SUBSCRIPTION.maxReceiveCount) },
      bundling: {
        externalModules: ['sharp'],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_inputDir: string, outputDir: string) => [`${SHARP_INSTALL} --prefix "${outputDir}"`],
        },
      },
    });
    this.handlerFunction.grantTable(props.table, renditionsTableGrant, ['dynamodb:UpdateItem']);
    this.handlerFunction.function.addEnvironment('BUCKET_NAME', props.bucket.bucketName);
    this.handlerFunction.role.addToPrincipalPolicy(
      new PolicyStatement({
        // Reads originals, writes renditions beside them, deletes those of an item deleted meanwhile.
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: [props.bucket.arnForObjects('library/*')],
      }),
    );
    const source = new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true });
    this.handlerFunction.function.addEventSource(source);

    Validations.of(this.handlerFunction.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        "The function is invoked by its SQS event source mapping, never asynchronously; failed messages go to the queue's dead-letter queue.",
    });
    const mapping = this.handlerFunction.function.node.findChild(
      `SqsEventSource:${Names.nodeUniqueId(this.queue.node)}`,
    );
    Validations.of(mapping.node.defaultChild ?? mapping).acknowledge({
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        "An SQS event source mapping takes no on-failure destination (only stream and Kafka sources do); the queue's redrive policy moves a message to the dead-letter queue after maxReceiveCount deliveries.",
    });
    Validations.of(this.handlerFunction.role).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'X-Ray PutTraceSegments/PutTelemetryRecords do not support resource-level permissions; AWS documents Resource "*" for them.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::${nagArnOf(props.bucket)}/library/*]`,
        reason:
          'Library objects are keyed by generated guids (library/<anonymous user>/<item>); renditions sit beside each original.',
      },
    );
  }
}
