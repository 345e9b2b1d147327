/**
 * The whole service in one stack: data, authorizers, the API built from the route table (its routes in a
 * nested stack per route group, lib/constructs/route-groups.ts), the table stream's consumers (library
 * sweeper, event publisher), and its monitoring. Environment-agnostic (no account or region), so `cdk synth`
 * runs offline.
 */
import { Annotations, CfnOutput, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { routes, type Route } from '../functions/routes.ts';
import type { ServiceConfig } from './service-config.ts';
import { Api } from './constructs/api.ts';
import { Authorizers } from './constructs/authorizers.ts';
import { Data } from './constructs/data.ts';
import { EventPublisher } from './constructs/event-publisher.ts';
import { LibrarySweeper } from './constructs/library-sweeper.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { Renditions } from './constructs/renditions.ts';
import { Webhooks } from './constructs/webhooks.ts';
import { nagArnOf } from './constructs/dead-letters.ts';

export interface ServiceStackProps extends StackProps {
  config: ServiceConfig;
  /** The routes to serve; the route table (functions/routes.ts) unless a test passes another. */
  routes?: readonly Route[];
}

export class ServiceStack extends Stack {
  readonly data: Data;
  readonly authorizers: Authorizers;
  readonly api: Api;
  readonly librarySweeper: LibrarySweeper;
  readonly renditions: Renditions;
  readonly webhooks: Webhooks;
  readonly eventPublisher: EventPublisher;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    // Server access logs are delivered under a bucket policy, so the log bucket can refuse ACLs.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    const { config } = props;
    const namePrefix = `photo-commerce-${config.stage}`;
    this.annotatePlaceholders(config);

    this.data = new Data(this, 'Data', {
      namePrefix,
      corsAllowedOrigins: config.corsAllowedOrigins,
      siteOrigin: new URL(config.checkoutUrl).origin,
    });
    this.authorizers = new Authorizers(this, 'Auth', {
      namePrefix,
      table: this.data.table,
      jwtIssuer: config.jwtIssuer,
      jwtAudience: config.jwtAudience,
      jwtClientIds: config.jwtClientIds,
      jwtMaxAgeSeconds: config.jwtMaxAgeSeconds,
      jwtJwksUrl: config.jwtJwksUrl,
      cacheSeconds: config.authorizerCacheSeconds,
      logRetention: config.logRetentionDays,
    });
    this.webhooks = new Webhooks(this, 'Webhooks', {
      namePrefix,
      table: this.data.table,
      bus: this.data.bus,
      webhookSecrets: this.data.webhookSecrets,
      logRetention: config.logRetentionDays,
      maxConcurrency: config.webhookMaxConcurrency,
      fanoutMaxConcurrency: config.webhookFanoutMaxConcurrency,
      pauseAfterMinutes: config.webhookPauseAfterMinutes,
      subscribersCacheSeconds: config.webhookSubscribersCacheSeconds,
    });
    this.api = new Api(this, 'Api', {
      config,
      namePrefix,
      data: {
        table: this.data.table,
        bucket: this.data.bucket,
        bus: this.data.bus,
        webhookSecrets: this.data.webhookSecrets,
        artworkLinks: this.data.artworkLinks,
        webhookDeliveries: this.webhooks.deliveries.queue,
      },
      authorizers: this.authorizers,
      routes: props.routes ?? routes,
    });
    this.librarySweeper = new LibrarySweeper(this, 'LibrarySweeper', {
      namePrefix,
      table: this.data.table,
      bucket: this.data.bucket,
      logRetention: config.logRetentionDays,
    });
    this.eventPublisher = new EventPublisher(this, 'EventPublisher', {
      namePrefix,
      table: this.data.table,
      bus: this.data.bus,
      logRetention: config.logRetentionDays,
    });
    this.renditions = new Renditions(this, 'Renditions', {
      namePrefix,
      table: this.data.table,
      bucket: this.data.bucket,
      bus: this.data.bus,
      logRetention: config.logRetentionDays,
      maxConcurrency: config.renditionsMaxConcurrency,
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      namePrefix,
      api: this.api.restApi,
      accessLogs: this.api.accessLogs,
      endpoints: this.api.endpoints,
      authorizer: this.authorizers.handlerFunction,
      streamConsumers: [this.librarySweeper, this.eventPublisher],
      renditions: this.renditions,
      webhooks: this.webhooks,
      table: this.data.table,
      bucket: this.data.bucket,
      alarmEmails: config.alarmEmails,
      alarmTopicArn: config.alarmTopicArn,
      serverErrorRate: config.alarmServerErrorRate,
      latencyP99Ms: config.alarmLatencyP99Ms,
    });

    new CfnOutput(this, 'ApiUrl', {
      value: this.api.restApi.url,
      description: 'Base URL of the API (the smoke command takes it as --url)',
    });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'BucketName', { value: this.data.bucket.bucketName });
    new CfnOutput(this, 'EventBusName', { value: this.data.bus.eventBusName });
    for (const [scope, plan] of Object.entries(this.api.usagePlans))
      new CfnOutput(this, `UsagePlanId${scope[0]!.toUpperCase()}${scope.slice(1)}`, {
        value: plan.usagePlanId,
        description: `Where ${scope} API keys are registered (bin/aws-api-key.ts --scope ${scope})`,
      });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn });
    new CfnOutput(this, 'DashboardUrl', {
      value: `https://${this.region}.console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards:name=${this.monitoring.dashboard.dashboardName}`,
    });

    this.suppressFindings();
  }

  /**
   * A setting still at its placeholder (issuer.example.com, the example checkout site) is an error, which
   * stops `cdk synth` and `cdk deploy`, unless acknowledged by name (acknowledgedPlaceholders: the tests,
   * the local stack); acknowledged, a warning.
   */
  private annotatePlaceholders(config: ServiceConfig): void {
    const acknowledged = (setting: string) => config.acknowledgedPlaceholders.includes(setting.split(' ')[0]!);
    for (const setting of config.placeholders.filter(acknowledged))
      Annotations.of(this).addWarningV2(
        `photo-commerce:placeholder:${setting}`,
        `${setting} is a placeholder; set it before deploying (docs/deploy.md, Configuration).`,
      );
    const unacknowledged = config.placeholders.filter((setting) => !acknowledged(setting));
    if (unacknowledged.length > 0)
      Annotations.of(this).addError(
        `Settings still at their placeholder: ${unacknowledged.join(', ')}. Set them for a deployment (docs/deploy.md, Configuration), or acknowledge them by name for a stack that is not one: -c acknowledgedPlaceholders=${unacknowledged.map((setting) => setting.split(' ')[0]).join(',')}`,
      );
  }

  /** cdk-nag findings that hold for every API function and its role; each names exactly what it allows. */
  private suppressFindings(): void {
    for (const endpoint of [this.authorizers.handlerFunction, ...this.api.endpoints.map(({ endpoint }) => endpoint)]) {
      const bucketArn = nagArnOf(this.data.bucket, endpoint.role);
      Validations.of(endpoint.function).acknowledge({
        id: 'Serverless-LambdaDLQ',
        reason:
          'API Gateway invokes this function synchronously and receives its error; a dead-letter queue only ever receives failed asynchronous invocations, and there are none.',
      });
      Validations.of(endpoint.role).acknowledge(
        {
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason:
            'X-Ray PutTraceSegments/PutTelemetryRecords do not support resource-level permissions; AWS documents Resource "*" for them.',
        },
        {
          id: `AwsSolutions-IAM5[Resource::${bucketArn}/*]`,
          reason:
            'Image objects are keyed by generated guids (library/<anonymous user>/<item>, uploads/<item>), unknown until the request; the grant covers objects of this one bucket and exists only on library functions.',
        },
        {
          id: `AwsSolutions-IAM5[Resource::${bucketArn}/library/*]`,
          reason:
            'The library read handlers sign download URLs (s3:GetObject only) for library objects, keyed by generated guids unknown until the request.',
        },
        {
          id: `AwsSolutions-IAM5[Resource::${bucketArn}/held/*]`,
          reason:
            "Originals an erasure keeps for the lab (held/library/<anonymous user>/<item>): the erasure copies and deletes them, the lab's read signs download URLs for them.",
        },
      );
    }
  }
}
