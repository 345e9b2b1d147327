/**
 * The IAM check (test/support/iam) on the synthesized template: it allows the calls the functions make and
 * catches the mistakes the CDK code that turns grants into policies could make (a key prefix, an index
 * ARN, an action of a transaction, the bucket policy's TLS deny, an S3 action, a KMS encryption context), which a check against the
 * route table's grants cannot see. The policies are taken from the real template and then broken one way
 * each, as the CDK code would break them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { AwsCall } from '../../lib/local/aws-call-log.ts';
import { functionCredentials } from '../../lib/local/function-credentials.ts';
import { serviceTemplateAccess } from '../support/iam/check.ts';
import { evaluateCalls, type CallVerdict } from '../support/iam/evaluate-calls.ts';
import { grantsOf, unexercisedGrants } from '../support/iam/grant-coverage.ts';
import { statementsOf, type PolicyStatement, type TemplateAccess } from '../support/iam/template-access.ts';

let access: TemplateAccess;
// Synthesis takes seconds, and minutes on a machine shared with other runs.
beforeAll(() => {
  access = serviceTemplateAccess();
}, 180_000);

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/photo-commerce-local';
const BUCKET = 'arn:aws:s3:::local-images';
const HTTPS = { 'aws:SecureTransport': 'true' };
const S3_HTTPS = { ...HTTPS, 's3:TlsVersion': '1.2' };

const call = (handler: string, action: string, resource: string, context: AwsCall['context']): AwsCall => ({
  accessKeyId: functionCredentials(handler).accessKeyId,
  action,
  resource,
  context,
  via: 'test',
});
const tableCall = (handler: string, action: string, keys: string[], resource = TABLE) =>
  call(handler, action, resource, { ...HTTPS, 'dynamodb:LeadingKeys': keys });

const verdictOf = async (recorded: AwsCall, template = access): Promise<CallVerdict> =>
  (await evaluateCalls([recorded], template))[0] as CallVerdict;

/** `access` with `change` applied to every statement of `handler`'s role (a copy: the template stays). */
function breakPolicies(handler: string, change: (statement: PolicyStatement) => PolicyStatement): TemplateAccess {
  const fn = access.functions.get(handler)!;
  const policies = fn.policies.map((policy) => ({
    ...policy,
    document: { ...policy.document, Statement: statementsOf(policy.document).map((s) => change(structuredClone(s))) },
  }));
  return { ...access, functions: new Map([...access.functions, [handler, { ...fn, policies }]]) };
}
const withoutAction = (action: string) => (statement: PolicyStatement) => ({
  ...statement,
  Action: [statement.Action ?? []].flat().filter((name) => name !== action),
});

describe('the template allows what the functions do', () => {
  it.each([
    tableCall('claim-library-items', 'dynamodb:ConditionCheckItem', ['LIBITEM#1']),
    tableCall('claim-library-items', 'dynamodb:BatchGetItem', ['LIBITEM#1', 'LIBITEM#2']),
    tableCall('list-library', 'dynamodb:Query', ['LIBUSER#u1']),
    tableCall('list-library', 'dynamodb:Query', ['LIBUSER#u1'], `${TABLE}/index/GSI1`),
    tableCall('authorizer', 'dynamodb:GetItem', ['APIKEY#abc']),
    // A delivery reads its key's revoked mark; a redelivery marks its delivery Pending (a conditional update).
    tableCall('webhook-deliver', 'dynamodb:GetItem', ['WEBHOOK#abc']),
    tableCall('redeliver-webhook-delivery', 'dynamodb:UpdateItem', ['WHDELIVERY#w1']),
    tableCall('complete-checkout', 'dynamodb:PutItem', ['OUTBOX#e1']),
    call('get-library-item', 's3:GetObject', `${BUCKET}/library/item/original`, S3_HTTPS),
    call('complete-library-upload', 's3:ListBucket', BUCKET, S3_HTTPS),
    call('publish-events', 'events:PutEvents', 'arn:aws:events:us-east-1:000000000000:event-bus/local', HTTPS),
  ])('$accessKeyId: $action on $resource', async (recorded) => {
    const verdict = await verdictOf(recorded);
    expect(verdict.reason).toBeUndefined();
    expect(verdict.allowed).toBe(true);
  });
});

describe('the template denies, and says why', () => {
  it('a partition key outside the function’s prefixes', async () => {
    const verdict = await verdictOf(tableCall('claim-library-items', 'dynamodb:GetItem', ['LIBITEM#1', 'USER#u1']));
    expect(verdict).toMatchObject({ allowed: false, handler: 'claim-library-items', action: 'dynamodb:GetItem' });
    expect(verdict.reason).toMatch(/^no Allow statement of the role's policies \(Endpointclaimlibraryitems/);
  });

  it('a prefix the CDK code left out of dynamodb:LeadingKeys', async () => {
    const broken = breakPolicies('claim-library-items', (statement) => {
      const leading = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
      if (Array.isArray(leading))
        statement.Condition!['ForAllValues:StringLike']!['dynamodb:LeadingKeys'] = leading.filter(
          (prefix) => prefix !== 'LIBITEM#*',
        );
      return statement;
    });
    const recorded = tableCall('claim-library-items', 'dynamodb:UpdateItem', ['LIBITEM#1']);
    expect((await verdictOf(recorded)).allowed).toBe(true);
    expect((await verdictOf(recorded, broken)).allowed).toBe(false);
  });

  it('a Query on an index whose ARN the statement lacks', async () => {
    const broken = breakPolicies('list-library', (statement) => ({
      ...statement,
      Resource: [statement.Resource ?? []].flat().filter((arn) => !arn.includes('/index/')),
    }));
    const recorded = tableCall('list-library', 'dynamodb:Query', ['LIBUSER#u1'], `${TABLE}/index/GSI1`);
    expect((await verdictOf(recorded, broken)).allowed).toBe(false);
    // The table itself is still granted: only the index is missing.
    expect((await verdictOf(tableCall('list-library', 'dynamodb:Query', ['LIBUSER#u1']), broken)).allowed).toBe(true);
  });

  it('a ConditionCheck in a transaction without dynamodb:ConditionCheckItem', async () => {
    const broken = breakPolicies('claim-library-items', withoutAction('dynamodb:ConditionCheckItem'));
    const verdict = await verdictOf(
      tableCall('claim-library-items', 'dynamodb:ConditionCheckItem', ['LIBITEM#1']),
      broken,
    );
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toMatch(/no Allow statement/);
  });

  it('an S3 call without TLS: the bucket policy’s deny', async () => {
    const verdict = await verdictOf(
      call('get-library-item', 's3:GetObject', `${BUCKET}/library/item/original`, {
        ...S3_HTTPS,
        'aws:SecureTransport': 'false',
      }),
    );
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toBe(
      'explicitly denied by statement #1 of the bucket policy (Deny s3:* if {"Bool":{"aws:SecureTransport":"false"}})',
    );
  });

  it('an S3 action the role lacks', async () => {
    const verdict = await verdictOf(
      call('get-library-item', 's3:PutObject', `${BUCKET}/library/item/original`, S3_HTTPS),
    );
    expect(verdict.allowed).toBe(false);
    const broken = breakPolicies('sign-multipart-parts', withoutAction('s3:PutObject'));
    const part = call('sign-multipart-parts', 's3:PutObject', `${BUCKET}/library/item/original`, S3_HTTPS);
    expect((await verdictOf(part)).allowed).toBe(true);
    expect((await verdictOf(part, broken)).allowed).toBe(false);
  });

  it('an object outside the prefix the role names', async () => {
    const verdict = await verdictOf(call('get-library-item', 's3:GetObject', `${BUCKET}/uploads/item`, S3_HTTPS));
    expect(verdict.allowed).toBe(false);
  });

  it('a call that lacks a condition key the template tests (else ForAllValues would hold vacuously)', async () => {
    const verdict = await verdictOf(call('claim-library-items', 'dynamodb:GetItem', TABLE, HTTPS));
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toMatch(/conditions on dynamodb:LeadingKeys, which the call log does not record/);
  });

  it('a webhook secret sealed or opened with any context but a webhook id, or by a function not granted it', async () => {
    const KEY = 'arn:aws:kms:us-east-1:000000000000:key/local';
    // Without a context, KMS gives no kms:EncryptionContextKeys at all.
    const sealing = (handler: string, action: string, keys: string[]) =>
      call(handler, action, KEY, keys.length === 0 ? HTTPS : { ...HTTPS, 'kms:EncryptionContextKeys': keys });
    expect((await verdictOf(sealing('create-webhook', 'kms:Encrypt', ['WebhookId']))).allowed).toBe(true);
    expect((await verdictOf(sealing('webhook-deliver', 'kms:Decrypt', ['WebhookId']))).allowed).toBe(true);
    for (const keys of [[], ['Other'], ['WebhookId', 'Other']])
      expect((await verdictOf(sealing('webhook-deliver', 'kms:Decrypt', keys))).allowed, keys.join()).toBe(false);
    expect((await verdictOf(sealing('create-webhook', 'kms:Decrypt', ['WebhookId']))).allowed).toBe(false);
    expect((await verdictOf(sealing('get-webhook', 'kms:Decrypt', ['WebhookId']))).allowed).toBe(false);
  });

  it("the artwork links' MACs: made by the artwork read and the link's function only, with the links' key only", async () => {
    const KEY = 'arn:aws:kms:us-east-1:000000000000:key/local';
    for (const handler of ['get-order-artwork', 'follow-artwork-link'])
      expect((await verdictOf(call(handler, 'kms:GenerateMac', KEY, HTTPS))).allowed, handler).toBe(true);
    for (const handler of ['get-order', 'create-webhook', 'webhook-deliver'])
      expect((await verdictOf(call(handler, 'kms:GenerateMac', KEY, HTTPS))).allowed, handler).toBe(false);
    // The webhook secrets' key is not the links' (another action maps the call onto it).
    expect((await verdictOf(call('follow-artwork-link', 'kms:Decrypt', KEY, HTTPS))).allowed).toBe(false);
    // The link's function reads the owner pointer, the item and the artwork record, and writes nothing.
    expect((await verdictOf(tableCall('follow-artwork-link', 'dynamodb:GetItem', ['ORDER#abc']))).allowed).toBe(true);
    expect((await verdictOf(tableCall('follow-artwork-link', 'dynamodb:UpdateItem', ['ORDER#abc']))).allowed).toBe(
      false,
    );
  });

  it("a redelivery that writes anything but its delivery (the revoked mark is the revocation CLI's)", async () => {
    const verdict = await verdictOf(tableCall('redeliver-webhook-delivery', 'dynamodb:UpdateItem', ['WEBHOOK#abc']));
    expect(verdict.allowed).toBe(false);
  });

  it('a function the template does not define', async () => {
    expect((await verdictOf(tableCall('no-such-function', 'dynamodb:GetItem', ['USER#1']))).reason).toMatch(
      /no function of that name/,
    );
  });
});

describe('grant coverage', () => {
  it('lists each grant no allowed call used, and not the ones used', async () => {
    const verdicts = await evaluateCalls([tableCall('get-project', 'dynamodb:GetItem', ['PROJECT#p1'])], access);
    const ofGetProject = (grants: ReturnType<typeof grantsOf>) =>
      grants.filter((grant) => grant.handler === 'get-project').map((grant) => `${grant.action} ${grant.resource}`);
    const all = ofGetProject(grantsOf(access));
    const left = ofGetProject(unexercisedGrants(access, verdicts));
    expect(all).toContain(`dynamodb:GetItem ${verdicts[0]!.resource}`);
    expect(left).not.toContain(`dynamodb:GetItem ${verdicts[0]!.resource}`);
    expect(left).toContain(`dynamodb:Query ${verdicts[0]!.resource}`);
    expect(all.length - left.length).toBe(1);
    // Log and trace grants are the Lambda runtime's, never recorded: not listed.
    expect(all.some((grant) => grant.startsWith('logs:') || grant.startsWith('xray:'))).toBe(false);
  });
});
