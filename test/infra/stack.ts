/**
 * Builds the service stack for template tests. Bundling is skipped (`aws:cdk:bundling-stacks: []`: each
 * function gets a placeholder asset) because it is the slow part and is proven once, for every function,
 * in bundling.test.ts.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { readServiceConfig } from '../../lib/service-config.ts';
import { ServiceStack } from '../../lib/service-stack.ts';

export interface SynthOptions {
  context?: Record<string, unknown>;
  bundle?: boolean;
  outdir?: string;
}

export function synthServiceStack(options: SynthOptions = {}) {
  const app = new App({
    ...(options.outdir ? { outdir: options.outdir } : {}),
    context: { ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }), ...options.context },
  });
  // The environment must not leak into tests (CHECKOUT_URL and JWT_* are also the local server's variables).
  const config = readServiceConfig(app.node, {});
  const stack = new ServiceStack(app, `PhotoCommerce-${config.stage}`, { config });
  const template = Template.fromStack(stack);
  return { app, stack, config, template };
}

/** cdk-nag's AwsSolutions and Serverless findings that no acknowledgment (written reason) covers. */
export function nagViolations(stack: ServiceStack): { rule: string; paths: string[] }[] {
  const violations = [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap(
    (pack) => pack.validateScope(stack).violations,
  );
  return violations.map((violation) => ({
    rule: violation.ruleName,
    paths: violation.violatingResources.map((resource) => resource.constructPath ?? ''),
  }));
}
