/**
 * Resolves CloudFormation intrinsic functions in a synthesized template to the strings AWS would put
 * there, with a fixed fake account and region: Ref (parameters, pseudo parameters, resources), Fn::GetAtt
 * (the ARNs of the resources policies name, a nested stack's outputs), Fn::Join, Fn::Sub, Fn::Select and
 * Fn::Split. A resource without a physical name gets its logical id as name, as unique as CloudFormation's.
 */

/** The account and region of the evaluated template (any fixed values do: calls are mapped onto them). */
export const TEMPLATE_ACCOUNT = '123456789012';
export const TEMPLATE_REGION = 'us-east-1';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export interface CfnResource {
  Type: string;
  Properties?: Record<string, Json>;
}
export interface CfnTemplate {
  Parameters?: Record<string, { Default?: Json }>;
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: Json }>;
}

/** A template with what its intrinsics need: its parameters' values and its nested stacks' scopes. */
export interface TemplateScope {
  template: CfnTemplate;
  parameters: Record<string, Json>;
  /** The scope of the nested stack each AWS::CloudFormation::Stack resource (by logical id) creates. */
  nested: Record<string, TemplateScope>;
}

const PSEUDO_PARAMETERS: Record<string, string> = {
  'AWS::Partition': 'aws',
  'AWS::Region': TEMPLATE_REGION,
  'AWS::AccountId': TEMPLATE_ACCOUNT,
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::NoValue': '',
};

const NAME_PROPERTIES: Record<string, string> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::Events::EventBus': 'Name',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::SNS::Topic': 'TopicName',
};

const physicalName = (scope: TemplateScope, logicalId: string, resource: CfnResource): string => {
  const property = NAME_PROPERTIES[resource.Type];
  const named = property ? resource.Properties?.[property] : undefined;
  if (named !== undefined) return String(resolve(scope, named));
  // Bucket names are lower case.
  return resource.Type === 'AWS::S3::Bucket' ? logicalId.toLowerCase() : logicalId;
};

const ARNS: Record<string, (name: string) => string> = {
  'AWS::DynamoDB::Table': (name) => `arn:aws:dynamodb:${TEMPLATE_REGION}:${TEMPLATE_ACCOUNT}:table/${name}`,
  'AWS::S3::Bucket': (name) => `arn:aws:s3:::${name}`,
  'AWS::Events::EventBus': (name) => `arn:aws:events:${TEMPLATE_REGION}:${TEMPLATE_ACCOUNT}:event-bus/${name}`,
  'AWS::SQS::Queue': (name) => `arn:aws:sqs:${TEMPLATE_REGION}:${TEMPLATE_ACCOUNT}:${name}`,
  'AWS::KMS::Key': (name) => `arn:aws:kms:${TEMPLATE_REGION}:${TEMPLATE_ACCOUNT}:key/${name}`,
  'AWS::IAM::Role': (name) => `arn:aws:iam::${TEMPLATE_ACCOUNT}:role/${name}`,
  'AWS::Lambda::Function': (name) => `arn:aws:lambda:${TEMPLATE_REGION}:${TEMPLATE_ACCOUNT}:function:${name}`,
  'AWS::Logs::LogGroup': (name) => `arn:aws:logs:${TEMPLATE_REGION}:${TEMPLATE_ACCOUNT}:log-group:${name}:*`,
  'AWS::SNS::Topic': (name) => `arn:aws:sns:${TEMPLATE_REGION}:${TEMPLATE_ACCOUNT}:${name}`,
};

function ref(scope: TemplateScope, name: string): Json {
  if (name in PSEUDO_PARAMETERS) return PSEUDO_PARAMETERS[name] as string;
  if (name in scope.parameters) return scope.parameters[name] as Json;
  const resource = scope.template.Resources[name];
  if (!resource) throw new Error(`Ref to ${name}, which the template does not define`);
  // An SQS queue's Ref is its URL; everything policies name by Ref is a name.
  if (resource.Type === 'AWS::SQS::Queue')
    return `https://sqs.${TEMPLATE_REGION}.amazonaws.com/${TEMPLATE_ACCOUNT}/${physicalName(scope, name, resource)}`;
  return physicalName(scope, name, resource);
}

function getAtt(scope: TemplateScope, logicalId: string, attribute: string): Json {
  const resource = scope.template.Resources[logicalId];
  if (!resource) throw new Error(`Fn::GetAtt of ${logicalId}, which the template does not define`);
  if (resource.Type === 'AWS::CloudFormation::Stack' && attribute.startsWith('Outputs.')) {
    const nested = scope.nested[logicalId];
    const output = nested?.template.Outputs?.[attribute.slice('Outputs.'.length)];
    if (!nested || !output) throw new Error(`Fn::GetAtt ${logicalId}.${attribute}: no such nested stack output`);
    return resolve(nested, output.Value);
  }
  const arnOf = ARNS[resource.Type];
  const arn = arnOf?.(physicalName(scope, logicalId, resource));
  if (attribute === 'Arn' && arn) return arn;
  if (attribute === 'StreamArn' && resource.Type === 'AWS::DynamoDB::Table') return `${arn}/stream/template`;
  if (attribute === 'QueueName' || attribute === 'Name') return physicalName(scope, logicalId, resource);
  return `${logicalId}.${attribute}`;
}

/** `${Name}` and `${Resource.Attribute}` in a Fn::Sub string, with its own variables first. */
function sub(scope: TemplateScope, text: string, variables: Record<string, Json>): string {
  return text.replace(/\$\{([^}!]+)\}/g, (_whole, name: string) => {
    if (name in variables) return String(resolve(scope, variables[name] as Json));
    const dot = name.indexOf('.');
    return String(
      dot > 0 && !name.startsWith('AWS::') ? getAtt(scope, name.slice(0, dot), name.slice(dot + 1)) : ref(scope, name),
    );
  });
}

/** `value` with every intrinsic function resolved in `scope`. */
export function resolve(scope: TemplateScope, value: Json): Json {
  if (Array.isArray(value)) return value.map((item) => resolve(scope, item));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  const argument = value[keys[0] as string] as Json;
  if (keys.length === 1)
    switch (keys[0]) {
      case 'Ref':
        return ref(scope, String(argument));
      case 'Fn::GetAtt': {
        const [logicalId, ...attribute] = Array.isArray(argument) ? argument.map(String) : String(argument).split('.');
        return getAtt(scope, logicalId as string, attribute.join('.'));
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, Json[]];
        return (resolve(scope, parts) as Json[]).map(String).join(separator);
      }
      case 'Fn::Sub': {
        const [text, variables] = Array.isArray(argument)
          ? (argument as [string, Record<string, Json>])
          : [String(argument), {}];
        return sub(scope, text, variables);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [Json, Json];
        return (resolve(scope, list) as Json[])[Number(resolve(scope, index))] as Json;
      }
      case 'Fn::Split': {
        const [separator, text] = argument as [string, Json];
        return String(resolve(scope, text)).split(separator);
      }
    }
  // Fn::If, Fn::ImportValue, ...: the template uses none today; resolved wrongly, a policy would silently mean something else.
  if (keys.length === 1 && keys[0]?.startsWith('Fn::')) throw new Error(`${keys[0]} is not resolved by the IAM check`);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(scope, item)]));
}
