/**
 * The CDK app `npx cdk synth | deploy` runs (bin/app.ts): one ServiceStack for the configured stage, checked
 * by cdk-nag's AwsSolutions and Serverless packs on every synth, so a finding without a written
 * acknowledgment stops the deployment. Tests build the same app, with the same checks.
 */
import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { readServiceConfig } from './service-config.ts';
import { ServiceStack } from './service-stack.ts';

export function serviceApp(
  props: AppProps = {},
  environment: NodeJS.ProcessEnv = process.env,
): { app: App; stack: ServiceStack } {
  const app = new App(props);
  const config = readServiceConfig(app.node, environment);
  const stack = new ServiceStack(app, `PhotoCommerce-${config.stage}`, {
    config,
    description: `photo-commerce service, stage ${config.stage}: REST API, Lambda per route, DynamoDB, S3, EventBridge`,
  });
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { verbose: true }),
    new ServerlessChecks(app, { verbose: true }),
  );
  return { app, stack };
}
