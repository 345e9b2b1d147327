/**
 * Every CloudFormation template of a synthesized stack, read from the cloud assembly (`cdk.out`): the
 * stack's own and those of its nested stacks (the route groups, lib/constructs/route-groups.ts), nested ones
 * found through the asset manifest, which names the file behind each `AWS::CloudFormation::Stack` resource's
 * TemplateURL. `resourcesInRootTerms` reads them as one template. Used by the template tests, and by
 * whatever runs the stack from cdk.out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, any>;
  Metadata?: Record<string, any>;
  DependsOn?: string | string[];
  [attribute: string]: unknown;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Parameters?: Record<string, { Type: string; [attribute: string]: unknown }>;
  Outputs?: Record<string, { Value: unknown; [attribute: string]: unknown }>;
  [section: string]: unknown;
}

export interface SynthesizedTemplate {
  /** Logical ids of the `AWS::CloudFormation::Stack` resources that lead to it from the root; [] for the root. */
  path: string[];
  /** Its file, as written, in the cloud assembly directory. */
  file: string;
  template: CfnTemplate;
  /** The values its parent passes to its parameters, in the parent's terms; {} for the root. */
  parameters: Record<string, unknown>;
}

interface AssemblyManifest {
  artifacts: Record<string, { type: string; properties?: { templateFile?: string; file?: string } }>;
}
interface AssetManifest {
  files: Record<string, { source: { path: string }; destinations: Record<string, { objectKey: string }> }>;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** The root stack's template first, then each nested stack's, depth first. */
export function readSynthesizedTemplates(cdkOutDir: string, stackName: string): SynthesizedTemplate[] {
  const { artifacts } = readJson<AssemblyManifest>(join(cdkOutDir, 'manifest.json'));
  const templateFile = artifacts[stackName]?.properties?.templateFile;
  if (!templateFile) throw new Error(`${cdkOutDir}: no stack ${stackName} in manifest.json`);
  const assetsFile = artifacts[`${stackName}.assets`]?.properties?.file;
  const fileOfObjectKey = new Map<string, string>();
  if (assetsFile) {
    for (const asset of Object.values(readJson<AssetManifest>(join(cdkOutDir, assetsFile)).files))
      for (const destination of Object.values(asset.destinations))
        fileOfObjectKey.set(destination.objectKey, asset.source.path);
  }

  const read = (file: string, path: string[], parameters: Record<string, unknown>): SynthesizedTemplate[] => {
    const template = readJson<CfnTemplate>(join(cdkOutDir, file));
    const nested = Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::CloudFormation::Stack')
      .flatMap(([logicalId, resource]) => {
        // The TemplateURL ends in the object key the asset manifest uploads the nested template to.
        const objectKey = /\/([^/"]+\.json)"/.exec(JSON.stringify(resource.Properties?.TemplateURL))?.[1];
        const nestedFile = objectKey && fileOfObjectKey.get(objectKey);
        if (!nestedFile) throw new Error(`${file}: ${logicalId}: no template for ${objectKey ?? 'its TemplateURL'}`);
        return read(nestedFile, [...path, logicalId], resource.Properties?.Parameters ?? {});
      });
    return [{ path, file, template, parameters }, ...nested];
  };
  return read(templateFile, [], {});
}

/**
 * The resources of every template in one map by logical id, each nested one written in the root's terms:
 * a `Ref` to a parameter becomes what the parent passes to it, so a nested policy's table ARN reads
 * `Fn::GetAtt [<table>, Arn]` as it would in the root.
 */
export function resourcesInRootTerms(templates: SynthesizedTemplate[]): Record<string, CfnResource> {
  const all: Record<string, CfnResource> = {};
  const parametersOf = new Map(templates.map((entry) => [entry.path.join('/'), entry.parameters]));
  for (const { path, template } of templates) {
    // Parameters of a nested stack may in turn name its parent's parameters: resolve up to the root.
    const inRootTerms = (value: unknown, depth: number): unknown => {
      if (Array.isArray(value)) return value.map((item) => inRootTerms(item, depth));
      if (value === null || typeof value !== 'object') return value;
      const ref = (value as { Ref?: unknown }).Ref;
      const passed = depth > 0 ? parametersOf.get(path.slice(0, depth).join('/')) : undefined;
      if (typeof ref === 'string' && passed && ref in passed) return inRootTerms(passed[ref], depth - 1);
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inRootTerms(item, depth)]));
    };
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      if (logicalId in all) throw new Error(`logical id ${logicalId} in two templates`);
      all[logicalId] = inRootTerms(resource, path.length) as CfnResource;
    }
  }
  return all;
}
