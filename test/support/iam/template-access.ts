/**
 * What the synthesized template lets each function do: its role's policies (AWS::IAM::Policy and
 * AWS::IAM::ManagedPolicy resources attached to the role, the role's inline policies) and the bucket
 * policies, all resolved to plain JSON (intrinsics.ts), over the root stack and its nested stacks. A nested
 * stack's parameters take the values its parent passes, so a policy naming the table through a parameter
 * names the table's ARN; functions and roles are matched by resolved name, wherever each is defined.
 */
import { Stack, type CfnElement, type NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { resolve, type CfnTemplate, type Json, type TemplateScope } from './intrinsics.ts';

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Principal?: Json;
  Condition?: Record<string, Record<string, Json>>;
}
export interface PolicyDocument {
  Version?: string;
  Statement: PolicyStatement | PolicyStatement[];
}
export interface NamedPolicy {
  name: string;
  document: PolicyDocument;
}

export interface FunctionAccess {
  /** The handler module name (functions/handlers/<handler>.ts), the function's name without the prefix. */
  handler: string;
  functionName: string;
  roleArn: string;
  policies: NamedPolicy[];
  /** Its resolved environment: TABLE_NAME, BUCKET_NAME and EVENT_BUS_NAME name what it works on. */
  environment: Record<string, string>;
}

export interface TemplateAccess {
  /** By handler module name. */
  functions: Map<string, FunctionAccess>;
  /** Resource policies (bucket policies, key policies) by the ARN of their bucket or key. */
  resourcePolicies: Map<string, PolicyDocument>;
}

export const statementsOf = (document: PolicyDocument): PolicyStatement[] =>
  Array.isArray(document.Statement) ? document.Statement : [document.Statement];

/** The scope of `stack`'s template and, recursively, of its nested stacks with the parameters it passes them. */
export function scopeOfStack(stack: Stack, parameters: Record<string, Json> = {}): TemplateScope {
  const template = Template.fromStack(stack).toJSON() as CfnTemplate;
  const defaults = Object.fromEntries(
    Object.entries(template.Parameters ?? {}).map(([name, parameter]) => [name, parameter.Default ?? '']),
  );
  const scope: TemplateScope = { template, parameters: { ...defaults, ...parameters }, nested: {} };
  const children = stack.node
    .findAll()
    .filter((construct): construct is NestedStack => Stack.isStack(construct) && construct.nestedStackParent === stack);
  for (const child of children) {
    const logicalId = stack.getLogicalId(child.nestedStackResource as CfnElement);
    const passed = resolve(scope, template.Resources[logicalId]?.Properties?.Parameters ?? {}) as Record<string, Json>;
    scope.nested[logicalId] = scopeOfStack(child, passed);
  }
  return scope;
}

/** Every template of `scope`'s tree, each in its own scope. */
const scopesOf = (scope: TemplateScope): TemplateScope[] => [scope, ...Object.values(scope.nested).flatMap(scopesOf)];

const roleNameOfArn = (arn: string) => arn.slice(arn.lastIndexOf('/') + 1);
const list = (value: Json | undefined): Json[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The functions named `<namePrefix>-<handler>` with their roles' policies, and the resource policies. */
export function templateAccess(root: TemplateScope, namePrefix: string): TemplateAccess {
  const policiesByRole = new Map<string, NamedPolicy[]>();
  const attach = (roleName: string, policy: NamedPolicy) =>
    policiesByRole.set(roleName, [...(policiesByRole.get(roleName) ?? []), policy]);
  const resourcePolicies = new Map<string, PolicyDocument>();
  const functions: { scope: TemplateScope; properties: Record<string, Json> }[] = [];

  for (const scope of scopesOf(root))
    for (const [logicalId, resource] of Object.entries(scope.template.Resources)) {
      const properties = resource.Properties ?? {};
      const resolved = () => resolve(scope, properties as Json) as Record<string, any>;
      switch (resource.Type) {
        case 'AWS::IAM::Policy':
        case 'AWS::IAM::ManagedPolicy': {
          const { PolicyDocument, PolicyName, ManagedPolicyName, Roles } = resolved();
          for (const role of list(Roles))
            attach(String(role), { name: PolicyName ?? ManagedPolicyName ?? logicalId, document: PolicyDocument });
          break;
        }
        case 'AWS::IAM::Role':
          for (const inline of list(resolved().Policies) as unknown as {
            PolicyName: string;
            PolicyDocument: PolicyDocument;
          }[])
            attach(String(resolve(scope, { Ref: logicalId })), {
              name: inline.PolicyName,
              document: inline.PolicyDocument,
            });
          break;
        case 'AWS::S3::BucketPolicy': {
          const { Bucket, PolicyDocument } = resolved();
          resourcePolicies.set(`arn:aws:s3:::${String(Bucket)}`, PolicyDocument);
          break;
        }
        // A key's policy decides with its role's: the default one lets the account's IAM policies grant.
        case 'AWS::KMS::Key':
          resourcePolicies.set(String(resolve(scope, { 'Fn::GetAtt': [logicalId, 'Arn'] })), resolved().KeyPolicy);
          break;
        case 'AWS::Lambda::Function':
          functions.push({ scope, properties });
          break;
      }
    }

  const access = new Map<string, FunctionAccess>();
  for (const { scope, properties } of functions) {
    const functionName = String(resolve(scope, properties.FunctionName ?? ''));
    if (!functionName.startsWith(`${namePrefix}-`)) continue;
    const handler = functionName.slice(namePrefix.length + 1);
    const roleArn = String(resolve(scope, properties.Role ?? ''));
    const environment = resolve(scope, (properties.Environment as Record<string, Json>)?.Variables ?? {});
    access.set(handler, {
      handler,
      functionName,
      roleArn,
      policies: policiesByRole.get(roleNameOfArn(roleArn)) ?? [],
      environment: Object.fromEntries(
        Object.entries(environment as Record<string, Json>).map(([k, v]) => [k, String(v)]),
      ),
    });
  }
  return { functions: access, resourcePolicies };
}
