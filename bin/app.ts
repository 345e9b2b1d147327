/**
 * CDK app entry (`npx cdk synth | deploy`): one ServiceStack per stage, checked by cdk-nag's AwsSolutions
 * and Serverless packs on every synth, so a finding without a written suppression stops the deployment.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { readServiceConfig } from '../lib/service-config.ts';
import { ServiceStack } from '../lib/service-stack.ts';

const app = new App();
const config = readServiceConfig(app.node);
new ServiceStack(app, `PhotoCommerce-${config.stage}`, {
  config,
  description: `photo-commerce service, stage ${config.stage}: REST API, Lambda per route, DynamoDB, S3, EventBridge`,
});
Validations.of(app).addPlugins(
  new AwsSolutionsChecks(app, { verbose: true }),
  new ServerlessChecks(app, { verbose: true }),
);
app.synth();
