/**
 * The renditions function's asset, bundled by the same construct as in the service stack (lib/constructs/renditions.ts)
 * but in a stack of its own, so one function is bundled (seconds) rather than all of them (a minute).
 */
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Renditions } from '../../lib/constructs/renditions.ts';
import { CONSUMER_CONCURRENCY } from '../../lib/consumer-concurrency.ts';

export interface RenditionsAsset {
  /** The staged asset directory, what `cdk deploy` zips and uploads. */
  dir: string;
  /** CDK's hash of the asset (its S3 key without `.zip`). */
  hash: string;
  /** The function's environment as the template gives it (references to other resources as they are). */
  environment: Record<string, unknown>;
}

export function synthRenditionsAsset(outdir: string): RenditionsAsset {
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'Renditions');
  new Renditions(stack, 'Renditions', {
    namePrefix: 'photo-commerce-test',
    table: Table.fromTableName(stack, 'Table', 'photo-commerce'),
    // A bucket of the stack's own: the construct names its ARN in cdk-nag acknowledgments.
    bucket: new Bucket(stack, 'Bucket'),
    bus: EventBus.fromEventBusName(stack, 'Bus', 'photo-commerce-events'),
    logRetention: RetentionDays.ONE_WEEK,
    maxConcurrency: CONSUMER_CONCURRENCY.renditions.fallback,
  });
  const [fn] = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function')) as {
    Properties: { Code: { S3Key: string }; Environment: { Variables: Record<string, unknown> } };
    Metadata: Record<string, string>;
  }[];
  return {
    dir: join(outdir, fn!.Metadata['aws:asset:path']!),
    hash: fn!.Properties.Code.S3Key.replace(/\.zip$/, ''),
    environment: fn!.Properties.Environment.Variables,
  };
}
