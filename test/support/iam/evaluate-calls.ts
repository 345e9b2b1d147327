/**
 * Evaluates recorded AWS calls (lib/local/aws-call-log.ts) against the template's IAM with
 * @cloud-copilot/iam-simulate: the calling function's role policies as identity policies and, for S3 and KMS,
 * the bucket or key policy as resource policy, in one account, with the call's condition keys. A call's local names
 * (table, bucket, bus, key, queue) are mapped onto the template's through the function's own environment
 * (TABLE_NAME, BUCKET_NAME, EVENT_BUS_NAME, WEBHOOK_KMS_KEY_ID or ARTWORK_LINK_KEY_ID, WEBHOOK_DELIVERY_QUEUE_URL), which is what it
 * would use in AWS.
 */
import { getDenialReasons, getGrantReasons, runSimulation, type RequestGrant } from '@cloud-copilot/iam-simulate';
import type { AwsCall } from '../../../lib/local/aws-call-log.ts';
import { functionOfAccessKey } from '../../../lib/local/function-credentials.ts';
import { TEMPLATE_ACCOUNT, TEMPLATE_REGION } from './intrinsics.ts';
import {
  statementsOf,
  type FunctionAccess,
  type PolicyDocument,
  type PolicyStatement,
  type TemplateAccess,
} from './template-access.ts';
import { conditionKeysOf, matchesAny } from './wildcards.ts';

export interface CallVerdict {
  handler: string;
  action: string;
  /** The call's resource in the template's names. */
  resource: string;
  context: AwsCall['context'];
  via: string;
  allowed: boolean;
  /** Why it is denied: which statement is missing or denies it. */
  reason?: string;
  /** The identity statements that allow it. */
  grants: RequestGrant[];
}

/**
 * `resource` (an ARN of the local stand-ins) with the template's name of its table, bucket, bus, key or queue.
 * `action` tells the two keys apart: only the artwork links' HMAC key makes MACs.
 */
export function templateResource(
  resource: string,
  environment: Record<string, string | undefined>,
  action?: string,
): string {
  const table = /^arn:aws:dynamodb:[^:]*:[^:]*:table\/[^/]+(.*)$/.exec(resource);
  if (table && environment.TABLE_NAME)
    return `arn:aws:dynamodb:${TEMPLATE_REGION}:${TEMPLATE_ACCOUNT}:table/${environment.TABLE_NAME}${table[1]}`;
  const object = /^arn:aws:s3:::[^/]+(.*)$/.exec(resource);
  if (object && environment.BUCKET_NAME) return `arn:aws:s3:::${environment.BUCKET_NAME}${object[1]}`;
  if (/^arn:aws:events:[^:]*:[^:]*:event-bus\//.test(resource) && environment.EVENT_BUS_NAME)
    return `arn:aws:events:${TEMPLATE_REGION}:${TEMPLATE_ACCOUNT}:event-bus/${environment.EVENT_BUS_NAME}`;
  // The key, as the stack names it (its ARN): the artwork links' or the webhook secrets'.
  const key = action === 'kms:GenerateMac' ? environment.ARTWORK_LINK_KEY_ID : environment.WEBHOOK_KMS_KEY_ID;
  if (/^arn:aws:kms:[^:]*:[^:]*:key\//.test(resource) && key) return key;
  // The one queue a function sends to or holds messages of: the deliveries queue (its URL names it).
  const queueUrl = environment.WEBHOOK_DELIVERY_QUEUE_URL;
  if (resource.startsWith('arn:aws:sqs:') && queueUrl) {
    const [account, name] = new URL(queueUrl).pathname.split('/').slice(1);
    return `arn:aws:sqs:${TEMPLATE_REGION}:${account}:${name}`;
  }
  // A function without the variable was given nothing of that kind: its call stays on a name no policy grants.
  return resource;
}

/** The names of the template's data (from any function's environment), for a function given none of them. */
const templateNames = (access: TemplateAccess): Record<string, string | undefined> =>
  Object.assign({}, ...[...access.functions.values()].map((fn) => fn.environment));

/** The ARN a resource policy of `resource` is kept under: its bucket's, or the key's own. */
const policyHolderOf = (resource: string) => /^arn:aws:s3:::[^/]+/.exec(resource)?.[0] ?? resource;

/**
 * Condition keys a statement that applies to the action tests but the call does not carry: the simulator
 * would treat them as absent (a ForAllValues condition on an absent key holds), so the recorder must
 * supply every key the template conditions on.
 */
function missingConditionKeys(documents: PolicyDocument[], action: string, context: AwsCall['context']): string[] {
  const keys = documents
    .flatMap(statementsOf)
    .filter((statement) => statement.Action !== undefined && matchesAny(statement.Action, action))
    .flatMap(conditionKeysOf);
  return [...new Set(keys)].filter((key) => !(key in context) && !(key.toLowerCase() in context));
}

/** A statement in a few words: `Deny s3:* if {"Bool":{"aws:SecureTransport":"false"}}`. */
const describeStatement = (statement: PolicyStatement | undefined) =>
  statement
    ? `${statement.Effect} ${[statement.Action ?? []].flat().join(',')}${statement.Condition ? ` if ${JSON.stringify(statement.Condition)}` : ''}`
    : 'unknown';

function denialReason(
  analysis: Parameters<typeof getDenialReasons>[0],
  fn: FunctionAccess,
  resourcePolicy: PolicyDocument | undefined,
  resource: string,
): string {
  const reasons = getDenialReasons(analysis).map((denial) => {
    if (denial.denialType === 'Explicit') {
      const document =
        denial.policyType === 'resource'
          ? resourcePolicy
          : fn.policies.find((policy) => policy.name === denial.policyIdentifier)?.document;
      const statement = document ? statementsOf(document)[denial.statementIndex - 1] : undefined;
      const holder = resource.startsWith('arn:aws:s3:') ? 'bucket' : 'key';
      const policy = denial.policyType === 'resource' ? `the ${holder} policy` : `policy ${denial.policyIdentifier}`;
      return `explicitly denied by statement ${denial.statementId ?? `#${denial.statementIndex}`} of ${policy} (${describeStatement(statement)})`;
    }
    return denial.policyType === 'identity'
      ? `no Allow statement of the role's policies (${fn.policies.map((policy) => policy.name).join(', ') || 'none'}) matches`
      : `implicitly denied by the ${denial.policyType} policy`;
  });
  return reasons.join('; ') || 'denied';
}

/** The verdict on each call of a function (calls by the tools' key are no function's and are skipped). */
export async function evaluateCalls(calls: AwsCall[], access: TemplateAccess): Promise<CallVerdict[]> {
  const fallbackNames = templateNames(access);
  const verdicts: CallVerdict[] = [];
  for (const call of calls) {
    const handler = functionOfAccessKey(call.accessKeyId);
    if (handler === undefined) continue;
    const base = { handler, action: call.action, context: call.context, via: call.via, grants: [] };
    const fn = access.functions.get(handler);
    if (!fn) {
      verdicts.push({
        ...base,
        resource: call.resource,
        allowed: false,
        reason: 'no function of that name in the template',
      });
      continue;
    }
    const resource = templateResource(call.resource, { ...fallbackNames, ...fn.environment }, call.action);
    const resourcePolicy = access.resourcePolicies.get(policyHolderOf(resource));
    const documents = [...fn.policies.map((policy) => policy.document), ...(resourcePolicy ? [resourcePolicy] : [])];
    const missing = missingConditionKeys(documents, call.action, call.context);
    if (missing.length > 0) {
      verdicts.push({
        ...base,
        resource,
        allowed: false,
        reason: `the template conditions on ${missing.join(', ')}, which the call log does not record`,
      });
      continue;
    }
    const response = await runSimulation(
      {
        request: {
          principal: fn.roleArn,
          action: call.action,
          resource: { resource, accountId: TEMPLATE_ACCOUNT },
          contextVariables: call.context,
        },
        identityPolicies: fn.policies.map((policy) => ({ name: policy.name, policy: policy.document })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy } : {}),
      },
      {},
    );
    if (response.resultType !== 'single') {
      const errors = response.resultType === 'error' ? JSON.stringify(response.errors) : response.resultType;
      verdicts.push({ ...base, resource, allowed: false, reason: `the simulator refused the request: ${errors}` });
      continue;
    }
    const analysis = response.result.analysis;
    verdicts.push(
      response.overallResult === 'Allowed'
        ? { ...base, resource, allowed: true, grants: getGrantReasons(analysis) }
        : { ...base, resource, allowed: false, reason: denialReason(analysis, fn, resourcePolicy, resource) },
    );
  }
  return verdicts;
}
