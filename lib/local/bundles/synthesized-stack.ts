/**
 * The functions of the synthesized stack, as CloudFormation would create them: for each
 * `AWS::Lambda::Function` of the template and its nested stacks (lib/synthesized-templates.ts), its name, asset folder in cdk.out,
 * handler, timeout, memory and environment, with the template's references to the table, bucket and bus
 * resolved to the local ones. The local stack's cloud assembly (LOCAL_CDK_OUT) is synthesized first (the CDK
 * app run as `cdk synth` runs it, offline) when it is missing, older than the sources, made with other local
 * settings or overwritten by another synthesis.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSynthesizedTemplates, resourcesInRootTerms, type CfnResource } from '../../synthesized-templates.ts';
import { PLACEHOLDER_SETTINGS } from '../../service-config.ts';

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The local stack's cloud assembly: a folder of its own, beside cdk.out, where `cdk synth` writes, so
 * neither overwrites the other's (at the same depth, so the assets' source maps, and their hashes, are
 * the same as in cdk.out).
 */
export const LOCAL_CDK_OUT = join(projectRoot, 'cdk.out.local');
/** What the local stack synthesized its assembly with (its CDK context); another value synthesizes again. */
const SETTINGS_FILE = 'local-settings.json';
/**
 * What the stack is made from, besides the CDK app's own modules (followed from bin/app.ts): a file here
 * newer than the assembly makes it stale. Every function's code is under functions/.
 */
const SOURCES = ['functions', 'package-lock.json', 'cdk.json'];
const APP = 'bin/app.ts';

export interface SynthesizedFunction {
  /** The physical name (FunctionName), e.g. `photo-commerce-local-create-basket`. */
  functionName: string;
  /** The handler module the function was bundled from (functions/handlers/<module>.ts). */
  module: string;
  assetDir: string;
  /** Lambda's `Handler`: `<file>.<export>` within the asset. */
  handler: string;
  timeoutSeconds: number;
  memorySize: number;
  /** Environment variables as the template sets them, references resolved. */
  environment: Record<string, string>;
}

/** What the template's references resolve to locally. */
export interface LocalResources {
  tableName: string;
  bucketName: string;
  eventBusName: string;
  /** The local webhook deliveries queue's URL (the one queue a function's environment names). */
  webhookDeliveryQueueUrl: string;
  /** The local KMS stand-in's key for webhook secrets. */
  webhookKeyId: string;
  /** Its HMAC key for the artwork links. */
  artworkLinkKeyId: string;
}

/** The app's modules: bin/app.ts and the relative imports it reaches (lib/, not the local stack it never imports). */
function appModules(): string[] {
  const found = new Set<string>();
  const visit = (file: string) => {
    if (found.has(file)) return;
    found.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/from\s+'(\.{1,2}\/[^']+\.ts)'/g))
      visit(join(dirname(file), specifier!));
  };
  visit(join(projectRoot, APP));
  return [...found];
}

/** The newest modification time among the stack's sources. */
function newestSource(): number {
  let newest = 0;
  const visit = (path: string) => {
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const source of SOURCES) visit(join(projectRoot, source));
  for (const module of appModules()) visit(module);
  return newest;
}

const settingsText = (context: Record<string, string>) => `${JSON.stringify(context, null, 2)}\n`;

/**
 * Whether the assembly is missing, older than the sources, made with other settings or overwritten by another
 * synthesis, and so why it is synthesized.
 */
export function staleness(context: Record<string, string>, outdir = LOCAL_CDK_OUT): string | undefined {
  const settings = join(outdir, SETTINGS_FILE);
  if (!existsSync(settings)) return `${relative(projectRoot, outdir)} was not synthesized by the local stack`;
  if (readFileSync(settings, 'utf8') !== settingsText(context))
    return `${relative(projectRoot, outdir)} was synthesized with other local settings`;
  // The settings are written after the synthesis: a manifest newer than them is another synthesis's (`cdk synth -o`).
  const manifest = statSync(join(outdir, 'manifest.json'), { throwIfNoEntry: false });
  if (!manifest || manifest.mtimeMs > statSync(settings).mtimeMs)
    return `${relative(projectRoot, outdir)} was synthesized again since, not by the local stack`;
  if (statSync(settings).mtimeMs < newestSource()) return `${relative(projectRoot, outdir)} is older than the sources`;
  return undefined;
}

/** Synthesizes the CDK app into `outdir` with `context`, as `cdk synth` runs it (no CLI, so no network). */
export function synthesize(context: Record<string, string>, outdir = LOCAL_CDK_OUT): void {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = spawnSync(process.execPath, [join(projectRoot, 'bin/app.ts')], {
    cwd: projectRoot,
    env: {
      ...process.env,
      CDK_OUTDIR: outdir,
      // The CLI's own context: asset metadata names each function's folder in cdk.out.
      // The local stack keeps whatever placeholders its settings leave, acknowledged by name.
      CDK_CONTEXT_JSON: JSON.stringify({
        acknowledgedPlaceholders: PLACEHOLDER_SETTINGS.join(','),
        ...context,
        'aws:cdk:enable-asset-metadata': true,
      }),
    },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(`cdk synth into ${outdir} failed (exit ${result.status}):\n${result.stderr}${result.stdout}`);
  // Written last: a synthesis cut short leaves the assembly stale.
  writeFileSync(join(outdir, SETTINGS_FILE), settingsText(context));
}

/**
 * A template value as CloudFormation would resolve it, for what function environments hold: strings,
 * `Ref`s to the table, bucket, bus and the webhook deliveries queue, and the ARNs of the webhook secrets' key
 * and the artwork links' key.
 * Anything else fails: a function must not start with a value the local stack cannot give it.
 */
function resolver(local: LocalResources, resources: Record<string, CfnResource>) {
  const byType: Record<string, string> = {
    'AWS::DynamoDB::Table': local.tableName,
    'AWS::S3::Bucket': local.bucketName,
    'AWS::Events::EventBus': local.eventBusName,
    'AWS::SQS::Queue': local.webhookDeliveryQueueUrl,
  };
  // The stack's two keys are told apart by their spec: the artwork links' is an HMAC key.
  const keyArnOf = (resource: CfnResource | undefined) =>
    (resource?.Properties as { KeySpec?: string } | undefined)?.KeySpec === 'HMAC_256'
      ? local.artworkLinkKeyId
      : local.webhookKeyId;
  return (value: unknown): string => {
    if (typeof value === 'string') return value;
    const ref = (value as { Ref?: string } | null)?.Ref;
    const [attributeOf, attribute] = (value as { 'Fn::GetAtt'?: [string, string] } | null)?.['Fn::GetAtt'] ?? [];
    const resolved =
      ref !== undefined
        ? byType[resources[ref]?.Type ?? '']
        : attribute === 'Arn' && attributeOf !== undefined
          ? resources[attributeOf]?.Type === 'AWS::KMS::Key'
            ? keyArnOf(resources[attributeOf])
            : undefined
          : undefined;
    if (resolved === undefined)
      throw new Error(`the local stack cannot resolve ${JSON.stringify(value)} in a function's environment`);
    return resolved;
  };
}

/** Every function of the stack synthesized in `outdir` for `stage` (their names are `photo-commerce-<stage>-<module>`). */
export function synthesizedFunctions(
  local: LocalResources,
  stage: string,
  outdir = LOCAL_CDK_OUT,
): SynthesizedFunction[] {
  const namePrefix = `photo-commerce-${stage}-`;
  const resources = resourcesInRootTerms(readSynthesizedTemplates(outdir, `PhotoCommerce-${stage}`));
  const resolve = resolver(local, resources);
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::Lambda::Function')
    .map((resource) => {
      const properties = resource.Properties ?? {};
      const functionName = String(properties.FunctionName);
      const variables = (properties.Environment?.Variables ?? {}) as Record<string, unknown>;
      return {
        functionName,
        module: functionName.slice(namePrefix.length),
        assetDir: join(outdir, String(resource.Metadata?.['aws:asset:path'])),
        handler: String(properties.Handler),
        timeoutSeconds: Number(properties.Timeout ?? 3),
        memorySize: Number(properties.MemorySize ?? 128),
        environment: Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, resolve(value)])),
      };
    });
}
