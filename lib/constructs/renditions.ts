/**
 * The renditions pipeline: an EventBridge rule sends every `LibraryItemsAdded` event of the service's bus
 * to a queue, whose consumer (functions/handlers/make-renditions.ts, arm64) makes the Thumbnail and
 * Preview of each item. A message is delivered at most RENDITION_MAX_ATTEMPTS times (the last delivery
 * records Failed instead of failing again) and then moves to a dead-letter queue, which an alarm watches.
 *
 * sharp is a native module: it stays outside the esbuild bundle, and the asset gets it for the function's
 * platform (linux, arm64, glibc), whatever the build machine is, copied from lambda-arm64/ (lib/lambda-arm64.ts),
 * which `npm ci` installed from its lock file: synth needs no registry, and copies the same bytes every time.
 * test/infra/bundling.test.ts checks the binaries in the synthesized asset, test/infra/renditions-arm64.test.ts
 * runs it on arm64.
 */
import { dirname } from 'node:path';
import { Duration, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Rule, type IEventBus } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { RENDITIONS_SUBSCRIPTION } from '../../functions/contracts/library-events.ts';
import { renditionsOutboxPrefixes, renditionsTableGrant } from '../../functions/routes.ts';
import { SERVICE_NAME } from '../../functions/shared/metric-names.ts';
import { leadingKeys } from './handler-function.ts';
import { ROUTELESS_FUNCTIONS } from './routeless-functions.ts';
import { ConsumedQueue } from './queue-consumer.ts';
import { nagArnOf } from './dead-letters.ts';
import { arm64SharpPackages, LAMBDA_ARM64_MODULES } from '../lambda-arm64.ts';

/** The commands that copy the arm64 sharp beside the bundle: plain files, no symlinks (Lambda assets are zip files). */
const copySharp = (outputDir: string): string[] => {
  const packages = arm64SharpPackages();
  const folders = new Set(packages.map((name) => dirname(`${outputDir}/node_modules/${name}`)));
  return [
    `mkdir -p ${[...folders].map((folder) => `"${folder}"`).join(' ')}`,
    ...packages.map((name) => `cp -R "${LAMBDA_ARM64_MODULES}/${name}" "${outputDir}/node_modules/${name}"`),
  ];
};

export interface RenditionsProps {
  namePrefix: string;
  table: ITable;
  bucket: IBucket;
  bus: IEventBus;
  logRetention: RetentionDays;
  /** Renditions made at once (RENDITIONS_MAX_CONCURRENCY, lib/consumer-concurrency.ts). */
  maxConcurrency: number;
}

export class Renditions extends ConsumedQueue {
  constructor(scope: Construct, id: string, props: RenditionsProps) {
    super(scope, id, {
      namePrefix: props.namePrefix,
      settings: { name: 'renditions', maxReceiveCount: RENDITIONS_SUBSCRIPTION.maxReceiveCount },
      spec: ROUTELESS_FUNCTIONS.renditions,
      logRetention: props.logRetention,
      retentionPeriod: Duration.days(4),
      deadLettersAlsoOf: 'its rule target',
      maxConcurrency: props.maxConcurrency,
      // The last delivery the queue makes is the one that records Failed.
      environment: { RENDITION_MAX_ATTEMPTS: String(RENDITIONS_SUBSCRIPTION.maxReceiveCount) },
      bundling: {
        externalModules: ['sharp'],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_inputDir: string, outputDir: string) => copySharp(outputDir),
        },
      },
    });
    new Rule(this, 'ItemsAdded', {
      ruleName: `${props.namePrefix}-renditions`,
      description: 'LibraryItemsAdded -> the renditions queue',
      eventBus: props.bus,
      eventPattern: { source: [SERVICE_NAME], detailType: [RENDITIONS_SUBSCRIPTION.detailType] },
      // An event EventBridge cannot hand to the queue (after its own retries) goes to the same dead letters.
      targets: [new SqsQueue(this.queue, { deadLetterQueue: this.deadLetters })],
    });

    this.handlerFunction.grantTable(props.table, renditionsTableGrant, ['dynamodb:UpdateItem']);
    // The decision's event: a new outbox record (PutItem), in the same transaction as the decision.
    this.handlerFunction.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:PutItem'],
        resources: [props.table.tableArn],
        conditions: leadingKeys(renditionsOutboxPrefixes),
      }),
    );
    this.handlerFunction.function.addEnvironment('BUCKET_NAME', props.bucket.bucketName);
    this.handlerFunction.role.addToPrincipalPolicy(
      new PolicyStatement({
        // Reads originals, writes renditions beside them, deletes those of an item deleted meanwhile.
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: [props.bucket.arnForObjects('library/*')],
      }),
    );
    Validations.of(this.handlerFunction.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArnOf(props.bucket)}/library/*]`,
      reason:
        'Library objects are keyed by generated guids (library/<anonymous user>/<item>); renditions sit beside each original.',
    });
  }
}
