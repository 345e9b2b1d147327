/**
 * Builds the service stack for template tests and reads back what it wrote: the root template and its
 * nested route-group templates, and all their resources in the root's terms (lib/synthesized-templates.ts).
 * Bundling is skipped (`aws:cdk:bundling-stacks: []`: each function gets a placeholder asset) because it is
 * the slow part and is proven once, for every function, in bundling.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { Route } from '../../functions/routes.ts';
import { PLACEHOLDER_SETTINGS, readServiceConfig } from '../../lib/service-config.ts';
import { serviceApp } from '../../lib/service-app.ts';
import { ServiceStack } from '../../lib/service-stack.ts';
import { readSynthesizedTemplates, resourcesInRootTerms } from '../../lib/synthesized-templates.ts';

export interface SynthOptions {
  context?: Record<string, unknown>;
  bundle?: boolean;
  outdir?: string;
  /** Routes other than the route table's. */
  routes?: readonly Route[];
}

/** Test stacks keep the placeholders (issuer.example.com, ...), acknowledged by name. */
export const ACKNOWLEDGED = { acknowledgedPlaceholders: PLACEHOLDER_SETTINGS.join(',') };

export function synthServiceStack(options: SynthOptions = {}) {
  const outdir = options.outdir ?? mkdtempSync(join(tmpdir(), 'cdk-stack-'));
  const app = new App({
    outdir,
    context: {
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...ACKNOWLEDGED,
      ...options.context,
    },
  });
  // The environment must not leak into tests (CHECKOUT_URL and JWT_* are also the local server's variables).
  const config = readServiceConfig(app.node, {});
  const stack = new ServiceStack(app, `PhotoCommerce-${config.stage}`, {
    config,
    ...(options.routes ? { routes: options.routes } : {}),
  });
  app.synth();
  const templates = readSynthesizedTemplates(outdir, stack.stackName);
  const template = Template.fromJSON(templates[0]!.template);
  return { app, stack, config, outdir, templates, template, resources: resourcesInRootTerms(templates) };
}

let shared: ReturnType<typeof synthServiceStack> | undefined;
/** The service stack synthesized once per process, for the checks that read it after the test run (IAM, metrics). */
export const sharedServiceStack = () => (shared ??= synthServiceStack());

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

/**
 * The app as bin/app.ts builds it, cdk-nag's packs among its validation plugins, synthesized with `context`
 * and without bundling: it throws when cdk-nag finds what no acknowledgment covers. Returns the templates and
 * the stack's warnings.
 */
export function synthServiceApp(context: Record<string, unknown> = {}) {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-app-'));
  try {
    const { app, stack } = serviceApp(
      { outdir, context: { 'aws:cdk:bundling-stacks': [], ...ACKNOWLEDGED, ...context } },
      {},
    );
    const assembly = app.synth();
    const templates = readSynthesizedTemplates(outdir, stack.stackName);
    const messages = (level: string) =>
      assembly
        .getStackArtifact(stack.artifactId)
        .messages.filter((message) => message.level === level)
        .map((message) => String(message.entry.data));
    const warnings = messages('warning');
    const errors = messages('error');
    return {
      stack,
      warnings,
      errors,
      template: Template.fromJSON(templates[0]!.template),
      resources: resourcesInRootTerms(templates),
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
