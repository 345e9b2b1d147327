/**
 * The synthesized templates (the root and its nested route groups, read as one), checked against the route table and the issue's list: one method, function
 * and authorizer per route; least-privilege roles; table, bucket, bus, API, dashboard and alarm
 * properties; and cdk-nag's AwsSolutions pack with nothing unacknowledged. One synth for the whole file.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { binaryMediaTypes, routes, takesApiKey, type Route } from '../../functions/routes.ts';
import { WEBHOOK_EVENT_TYPES } from '../../functions/webhooks/event-subscriptions.ts';
import { API_KEY_SCOPES } from '../../functions/auth/principal.ts';
import { table as tableSchema } from '../../functions/store/table.ts';
import { uploadObjectKey } from '../../functions/store/image-object-store.ts';
import { SWEPT_RECORD_TYPES } from '../../functions/contracts/streamed-record-types.ts';
import { OUTBOX_STREAM_FILTER } from '../../functions/contracts/outbox-stream.ts';
import { METRIC } from '../../functions/shared/metric-names.ts';
import type { ServiceStack } from '../../lib/service-stack.ts';
import type { StreamConsumer } from '../../lib/constructs/stream-consumer.ts';
import { STREAM_CONSUMERS } from '../../lib/local/stream-consumers.ts';
import { CONSUMER_CONCURRENCY } from '../../lib/consumer-concurrency.ts';
import { LAMBDA_NODE_OPTIONS } from '../../lib/lambda-runtime.ts';
import { routeGroupOf } from '../../lib/constructs/route-groups.ts';
import { readSynthesizedTemplates } from '../../lib/synthesized-templates.ts';
import { nagViolations, synthServiceStack } from './stack.ts';

type Json = any;

let stack: ServiceStack;
let template: Template;
let config: ReturnType<typeof synthServiceStack>['config'];
let resources: Record<string, Json>;

beforeAll(() => {
  ({ stack, template, config, resources } = synthServiceStack());
}, 120_000);

const logicalId = (construct: IConstruct): string => {
  const element = (construct instanceof CfnElement ? construct : construct.node.defaultChild) as CfnElement;
  return Stack.of(element).getLogicalId(element);
};
const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const ref = (construct: IConstruct) => ({ Ref: logicalId(construct) });
const arnOf = (construct: IConstruct) => ({ 'Fn::GetAtt': [logicalId(construct), 'Arn'] });

const endpointOf = (route: Route) => {
  const found = stack.api.endpoints.find((endpoint) => endpoint.route === route);
  if (!found) throw new Error(`no endpoint for ${route.handler}`);
  return found.endpoint;
};

/** Every statement of the policies attached to a role (or the role of that logical id). */
function statementsOf(
  role: IConstruct | string,
): { Action: string | string[]; Resource: Json; Effect: string; Condition?: Json }[] {
  const roleRef = typeof role === 'string' ? { Ref: role } : ref(role);
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([roleRef]))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
}
const actionsOf = (role: IConstruct | string): string[] =>
  statementsOf(role).flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
/** The S3 object actions a role allows, sorted, by the keys they reach (`library/*`, `held/*`, `*`). */
function objectActionsOf(role: IConstruct): Record<string, string[]> {
  const byKeys: Record<string, string[]> = {};
  for (const statement of statementsOf(role))
    for (const resource of [statement.Resource].flat()) {
      const keys = /"\/([^"]*\*)"\]\]\}$/.exec(JSON.stringify(resource))?.[1];
      if (keys === undefined) continue;
      const actions = [statement.Action].flat().filter((action: string) => action.startsWith('s3:'));
      byKeys[keys] = [...(byKeys[keys] ?? []), ...actions].sort();
    }
  return byKeys;
}

/** The event source mapping that feeds `consumer` from the table's stream (exactly one). */
function mappingOf(consumer: StreamConsumer): Json {
  const mappings = ofType('AWS::Lambda::EventSourceMapping')
    .map(([, mapping]) => mapping.Properties)
    .filter(
      (mapping) => JSON.stringify(mapping.FunctionName) === JSON.stringify(ref(consumer.handlerFunction.function)),
    );
  expect(mappings).toHaveLength(1);
  expect(mappings[0].EventSourceArn).toEqual({ 'Fn::GetAtt': [logicalId(stack.data.table), 'StreamArn'] });
  return mappings[0];
}

const dashboardBody = () => JSON.stringify(ofType('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody);

const TABLE_WRITES = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

describe('routes', () => {
  it('gives every route of the table a method integrated with its own function, behind the authorizer of its credential kind', () => {
    const functionIds = new Set<string>();
    for (const route of routes) {
      const method = stack.api.restApi.methods.find(
        (m) => m.httpMethod === route.method && m.resource.path === route.path,
      );
      expect(method, `${route.method} ${route.path}`).toBeDefined();
      const properties = resources[logicalId(method!)].Properties;
      const fn = endpointOf(route).function;
      const functionId = logicalId(fn);
      functionIds.add(functionId);

      expect(properties.Integration.Type).toBe('AWS_PROXY');
      expect(JSON.stringify(properties.Integration.Uri)).toContain(`"${functionId}","Arn"`);
      expect(resources[functionId].Properties.FunctionName).toBe(`photo-commerce-dev-${route.handler}`);

      expect(properties.ApiKeyRequired ?? false, route.handler).toBe(takesApiKey(route));
      const authorizer = stack.authorizers.for(route.credential);
      if (authorizer) {
        expect(properties.AuthorizationType).toBe('CUSTOM');
        expect(properties.AuthorizerId).toEqual(ref(authorizer as unknown as IConstruct));
      } else {
        expect(properties.AuthorizationType).toBe('NONE');
      }
    }
    expect(functionIds.size).toBe(routes.length);
    // The route methods and nothing else (no CORS preflights unless origins are configured).
    expect(ofType('AWS::ApiGateway::Method')).toHaveLength(routes.length);
  });

  it('puts two credentials on one resource: GET /library/{itemGuid} behind the API-key authorizer, DELETE behind the bearer one', () => {
    const methods = stack.api.restApi.methods.filter((m) => m.resource.path === '/library/{itemGuid}');
    const authorizerOf = (httpMethod: string) =>
      resources[logicalId(methods.find((m) => m.httpMethod === httpMethod)!)].Properties.AuthorizerId;
    expect(methods.map((m) => m.httpMethod).sort()).toEqual(['DELETE', 'GET']);
    expect(authorizerOf('GET')).toEqual(ref(stack.authorizers.apiKey.library as unknown as IConstruct));
    expect(authorizerOf('DELETE')).toEqual(ref(stack.authorizers.user as unknown as IConstruct));
  });

  it('bundles each function from its handler module, ESM on Node.js 24 / arm64 with tracing and its own log group', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const properties = fn.Properties;
      expect(properties.Runtime, id).toBe('nodejs24.x');
      expect(properties.Handler).toBe('index.handler');
      expect(properties.Architectures).toEqual(['arm64']);
      expect(properties.TracingConfig).toEqual({ Mode: 'Active' });
      // What Lambda's X-Ray daemon forwards the function's AWS call subsegments with (functions/shared/tracing.ts).
      expect(actionsOf(properties.Role['Fn::GetAtt'][0]), id).toEqual(
        expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
      );
      expect(properties.Environment.Variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'photo-commerce',
        POWERTOOLS_METRICS_NAMESPACE: 'PhotoCommerce',
        NODE_OPTIONS: LAMBDA_NODE_OPTIONS.join(' '),
      });
      const logGroupId = properties.LoggingConfig.LogGroup.Ref;
      expect(resources[logGroupId].Properties).toMatchObject({
        LogGroupName: `/aws/lambda/${properties.FunctionName}`,
        RetentionInDays: 30,
      });
    }
    for (const route of routes) {
      const properties = resources[logicalId(endpointOf(route).function)].Properties;
      const streamsImages = route.grants.bucket === 'write' || route.grants.bucket === 'readwrite';
      // A resumable upload's completion reads the whole file (up to 2 GiB) through the MD5: one vCPU, and it
      // goes on past API Gateway's 29 s (docs/performance.md).
      const readsWholeFile = route.handler === 'complete-multipart-upload';
      expect(properties.MemorySize, route.handler).toBe(readsWholeFile ? 1769 : streamsImages ? 1024 : 512);
      expect(properties.Timeout, route.handler).toBe(readsWholeFile ? 120 : streamsImages ? 29 : 10);
    }
  });

  it('passes binary media types from the route table and takes API keys for usage plans from the authorizer', () => {
    const api = ofType('AWS::ApiGateway::RestApi')[0]![1].Properties;
    expect(api.BinaryMediaTypes).toEqual([...binaryMediaTypes]);
    expect(api.ApiKeySourceType).toBe('AUTHORIZER');
    expect(api.EndpointConfiguration.Types).toEqual(['REGIONAL']);
    // One usage plan per key scope, each throttling its keys and named for its scope (bin/aws-api-key.ts checks the name).
    const plans = ofType('AWS::ApiGateway::UsagePlan').map(([, plan]) => plan.Properties);
    expect(plans.map((plan) => plan.UsagePlanName).sort()).toEqual(
      API_KEY_SCOPES.map((scope) => `photo-commerce-dev-${scope}`).sort(),
    );
    for (const plan of plans) {
      expect(plan.Throttle).toEqual({ RateLimit: 500, BurstLimit: 1000 });
      expect(plan.ApiStages).toHaveLength(1);
    }
    // The library plan keeps the id it had as the only plan, so the keys registered in it stay.
    expect(logicalId(stack.api.usagePlans.library)).toMatch(/^ApiRestApiUsagePlan[0-9A-F]{8}$/);
    const outputs = template.toJSON().Outputs;
    for (const scope of API_KEY_SCOPES) {
      const name = `UsagePlanId${scope[0]!.toUpperCase()}${scope.slice(1)}`;
      expect(outputs[name]?.Value, name).toEqual(ref(stack.api.usagePlans[scope]));
    }
  });
});

describe('authorizers', () => {
  it('runs one function behind one cached REQUEST authorizer per credential kind, each on the header of its kind', () => {
    const authorizers = ofType('AWS::ApiGateway::Authorizer').map(([, a]) => a.Properties);
    expect(authorizers.map((a) => a.IdentitySource).sort()).toEqual([
      'method.request.header.Authorization',
      // One per key scope, and one for the routes that take a key of any scope (webhooks).
      ...[...API_KEY_SCOPES, 'apiKey'].map(() => 'method.request.header.X-SERVICE-API-Key'),
    ]);
    // An answer is reused on the routes of its authorizer only: each serves the routes of one kind.
    for (const route of routes.filter((candidate) => candidate.credential !== 'none')) {
      const others = routes.filter((other) => other.credential !== route.credential && other.credential !== 'none');
      for (const other of others)
        expect(stack.authorizers.for(other.credential), `${route.handler} / ${other.handler}`).not.toBe(
          stack.authorizers.for(route.credential),
        );
    }
    for (const authorizer of authorizers) {
      expect(authorizer.Type).toBe('REQUEST');
      expect(authorizer.AuthorizerResultTtlInSeconds).toBe(300);
      expect(JSON.stringify(authorizer.AuthorizerUri)).toContain(logicalId(stack.authorizers.handlerFunction.function));
    }
  });

  it('lets the authorizer read API keys and nothing else', () => {
    const role = stack.authorizers.handlerFunction.role;
    const dataActions = actionsOf(role).filter((action) => !action.startsWith('logs:') && !action.startsWith('xray:'));
    expect(dataActions.sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']);
    const env = resources[logicalId(stack.authorizers.handlerFunction.function)].Properties.Environment.Variables;
    expect(Object.keys(env)).toEqual(
      expect.arrayContaining(['JWT_ISSUER', 'JWT_AUDIENCE', 'JWT_MAX_AGE_SECONDS', 'JWT_JWKS_URL', 'TABLE_NAME']),
    );
  });

  it('registers the refused-credentials key, whose value the authorizer answers for refusals, in the library plan', () => {
    const env = resources[logicalId(stack.authorizers.handlerFunction.function)].Properties.Environment.Variables;
    const [[keyId, key]] = ofType('AWS::ApiGateway::ApiKey') as [[string, { Properties: { Value: string } }]];
    expect(key.Properties.Value).toBe('photo-commerce-dev-refused-credentials');
    expect(env.REFUSED_CREDENTIALS_USAGE_KEY).toBe(key.Properties.Value);
    expect(key.Properties.Value.length).toBeGreaterThanOrEqual(20);
    const planKeys = ofType('AWS::ApiGateway::UsagePlanKey').map(([, k]) => k.Properties);
    expect(planKeys).toEqual([
      { KeyId: { Ref: keyId }, KeyType: 'API_KEY', UsagePlanId: ref(stack.api.usagePlans.library) },
    ]);
  });
});

describe('least privilege', () => {
  it('grants each function exactly what its route row names', () => {
    for (const route of routes) {
      const { role, function: fn } = endpointOf(route);
      const actions = actionsOf(role);
      const env = resources[logicalId(fn)].Properties.Environment.Variables;
      const label = route.handler;

      expect(
        actions.some((a) => a.startsWith('dynamodb:')),
        label,
      ).toBe(route.grants.table !== undefined);
      expect(
        actions.some((a) => TABLE_WRITES.includes(a)),
        label,
      ).toBe(route.grants.table?.write !== undefined);
      expect(
        actions.some((a) => a.startsWith('s3:')),
        label,
      ).toBe(route.grants.bucket !== undefined);
      const bucket = route.grants.bucket;
      expect(actions.includes('s3:DeleteObject'), label).toBe(
        bucket === 'write' || bucket === 'readwrite' || bucket === 'delete' || bucket === 'multipart',
      );
      expect(actions.includes('s3:GetObject'), label).toBe(
        bucket === 'readwrite' ||
          bucket === 'read' ||
          bucket === 'labRead' ||
          bucket === 'multipart' ||
          bucket === 'delete',
      );
      expect(actions.includes('s3:ListBucket'), label).toBe(bucket === 'readwrite' || bucket === 'multipart');
      expect(actions.includes('s3:ListMultipartUploadParts'), label).toBe(bucket === 'multipart');
      if (bucket === 'multipart') {
        // Resumable uploads assemble their object at its library key: nothing outside library/.
        const objects = statementsOf(role).find((statement) =>
          [statement.Action].flat().includes('s3:ListMultipartUploadParts'),
        );
        expect(objects?.Resource, label).toEqual({ 'Fn::Join': ['', [arnOf(stack.data.bucket), '/library/*']] });
      }
      // Read handlers sign library objects only; the lab's also the originals held for it; an erasure copies
      // a held original from its library key to held/ and deletes under both.
      if (bucket === 'read') expect(objectActionsOf(role), label).toEqual({ 'library/*': ['s3:GetObject'] });
      if (bucket === 'labRead')
        expect(objectActionsOf(role), label).toEqual({ 'library/*': ['s3:GetObject'], 'held/*': ['s3:GetObject'] });
      if (bucket === 'delete')
        expect(objectActionsOf(role), label).toEqual({
          'library/*': ['s3:DeleteObject', 's3:GetObject'],
          'held/*': ['s3:DeleteObject', 's3:PutObject'],
        });
      expect(actions.includes('events:PutEvents'), label).toBe(route.grants.events === true);
      expect('TABLE_NAME' in env, label).toBe(route.grants.table !== undefined);
      expect('BUCKET_NAME' in env, label).toBe(route.grants.bucket !== undefined);
      expect('EVENT_BUS_NAME' in env, label).toBe(route.grants.events === true);
    }
  });

  it('never grants Scan, wildcard actions or wildcard resources beyond X-Ray and image objects', () => {
    const objectsUnder = (prefix: string) =>
      JSON.stringify({ 'Fn::Join': ['', [arnOf(stack.data.bucket), `/${prefix}*`]] });
    // Read handlers only sign downloads of library objects (the lab's and an erasure also of held originals); the others reach every image object.
    const imageObjects = [objectsUnder(''), objectsUnder('library/'), objectsUnder('held/')];
    for (const endpoint of [stack.authorizers.handlerFunction, ...stack.api.endpoints.map((e) => e.endpoint)]) {
      for (const statement of statementsOf(endpoint.role)) {
        const actions = Array.isArray(statement.Action) ? statement.Action : [statement.Action];
        expect(
          actions.some((a) => a.includes('*') || a === 'dynamodb:Scan'),
          JSON.stringify(actions),
        ).toBe(false);
        const resourceList = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
        for (const resource of resourceList) {
          if (resource === '*') expect(actions.every((a) => a.startsWith('xray:'))).toBe(true);
          else if (JSON.stringify(resource).includes('/*')) expect(imageObjects).toContain(JSON.stringify(resource));
        }
      }
    }
  });

  it('scopes table access to the table and its named indexes, events to the bus, logs to the own log group', () => {
    const tableArn = arnOf(stack.data.table);
    const indexArns = tableSchema.globalSecondaryIndexes.map((index) => ({
      'Fn::Join': ['', [tableArn, `/index/${index.indexName}`]],
    }));
    for (const endpoint of [stack.authorizers.handlerFunction, ...stack.api.endpoints.map((e) => e.endpoint)]) {
      for (const statement of statementsOf(endpoint.role)) {
        const actions = [statement.Action].flat();
        if (actions.includes('dynamodb:GetItem')) expect(statement.Resource).toEqual([tableArn, ...indexArns]);
        if (actions.includes('dynamodb:PutItem')) expect(statement.Resource).toEqual(tableArn);
        if (actions.includes('events:PutEvents')) expect(statement.Resource).toEqual(arnOf(stack.data.bus));
        if (actions.includes('logs:PutLogEvents')) expect(statement.Resource).toEqual(arnOf(endpoint.logGroup));
      }
    }
  });
});

/** Item actions on the table (stream reads are not keyed by item). */
const ITEM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', ...TABLE_WRITES];
const LEADING_KEYS = 'ForAllValues:StringLike';

/** The partition-key patterns a role may read and write, from the LeadingKeys conditions of its statements. */
function leadingKeysOf(role: IConstruct): { read: string[]; write: string[] } {
  const keys = { read: new Set<string>(), write: new Set<string>() };
  for (const statement of statementsOf(role)) {
    const actions = [statement.Action].flat();
    const patterns: string[] = [statement.Condition?.[LEADING_KEYS]?.['dynamodb:LeadingKeys'] ?? []].flat();
    if (actions.includes('dynamodb:GetItem')) patterns.forEach((pattern) => keys.read.add(pattern));
    if (['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'].some((action) => actions.includes(action)))
      patterns.forEach((pattern) => keys.write.add(pattern));
  }
  return { read: [...keys.read].sort(), write: [...keys.write].sort() };
}

const LIBRARY_KEYS = [
  'ANONUSER#*',
  'BUILDER#*',
  'ERASE#*',
  'IDEMPOTENCY#*',
  'INGEST#*',
  'LIBITEM#*',
  'LIBUSER#*',
  'UPLOAD#*',
];
/** A push, pull or completed upload also records its LibraryItemsAdded event in the outbox. */
const INGEST_KEYS = { read: LIBRARY_KEYS, write: [...LIBRARY_KEYS, 'OUTBOX#*'].sort() };
/** What each function may touch, by partition-key prefix (functions/store/table.ts lists every key). */
const EXPECTED_KEYS: Record<string, { read: string[]; write: string[] }> = {
  'create-basket': { read: ['IDEMPOTENCY#*', 'USER#*'], write: ['IDEMPOTENCY#*', 'USER#*'] },
  'list-baskets': { read: ['USER#*'], write: [] },
  'get-basket': { read: ['USER#*'], write: [] },
  'delete-basket': { read: ['USER#*'], write: ['USER#*'] },
  'add-basket-line': { read: ['IDEMPOTENCY#*', 'PROJECT#*', 'USER#*'], write: ['IDEMPOTENCY#*', 'USER#*'] },
  'update-basket-line': { read: ['PROJECT#*', 'USER#*'], write: ['USER#*'] },
  'delete-basket-line': { read: ['USER#*'], write: ['USER#*'] },
  'checkout-basket': {
    // CHECKOUT#: the open checkout an unchanged basket answers again.
    read: ['CHECKOUT#*', 'IDEMPOTENCY#*', 'PROJECT#*', 'USER#*'],
    // LIBITEM#: the hold marks on the artwork's items (issue 33).
    write: ['CHECKOUT#*', 'IDEMPOTENCY#*', 'LIBITEM#*', 'OUTBOX#*', 'USER#*'],
  },
  // LIBITEM#: a version's artwork items must exist (issue 33).
  'put-project': { read: ['LIBITEM#*', 'PROJECT#*'], write: ['PROJECT#*'] },
  'get-project': { read: ['PROJECT#*'], write: [] },
  'get-checkout': { read: ['CHECKOUT#*', 'USER#*'], write: [] },
  'complete-checkout': { read: ['CHECKOUT#*', 'USER#*'], write: ['CHECKOUT#*', 'ORDER#*', 'OUTBOX#*', 'USER#*'] },
  'list-orders': { read: ['USER#*'], write: [] },
  'get-order': { read: ['USER#*'], write: [] },
  // CHECKOUT#: a change that ends the order's artwork hold writes it on the checkout record.
  // ORDER#: a cancel marks the owner pointer the lab's artwork read answers from.
  'update-order-status': { read: ['ORDER#*', 'USER#*'], write: ['CHECKOUT#*', 'ORDER#*', 'OUTBOX#*', 'USER#*'] },
  'cancel-order': {
    read: ['IDEMPOTENCY#*', 'USER#*'],
    write: ['CHECKOUT#*', 'IDEMPOTENCY#*', 'ORDER#*', 'OUTBOX#*', 'USER#*'],
  },
  'get-order-artwork': { read: ['ERASE#*', 'ORDER#*', 'PROJECT#*'], write: [] },
  // A DownloadLink's check: the owner pointer and the item's record; a held erased item's artwork record and intent.
  'follow-artwork-link': { read: ['ERASE#*', 'LIBITEM#*', 'ORDER#*', 'PROJECT#*'], write: [] },
  'push-library-item': INGEST_KEYS,
  'pull-library-item': INGEST_KEYS,
  'push-library-items': INGEST_KEYS,
  'pull-library-items': INGEST_KEYS,
  'get-item-builder-url': { read: LIBRARY_KEYS, write: LIBRARY_KEYS },
  'get-items-builder-url': { read: LIBRARY_KEYS, write: LIBRARY_KEYS },
  'create-library-upload': { read: LIBRARY_KEYS, write: LIBRARY_KEYS },
  'complete-library-upload': INGEST_KEYS,
  'start-multipart-upload': { read: LIBRARY_KEYS, write: LIBRARY_KEYS },
  'sign-multipart-parts': { read: LIBRARY_KEYS, write: LIBRARY_KEYS },
  'get-multipart-upload': { read: LIBRARY_KEYS, write: LIBRARY_KEYS },
  'complete-multipart-upload': INGEST_KEYS,
  'abort-multipart-upload': { read: LIBRARY_KEYS, write: LIBRARY_KEYS },
  'get-library-item': { read: LIBRARY_KEYS, write: [] },
  'get-builder': { read: LIBRARY_KEYS, write: [] },
  'claim-library-items': { read: LIBRARY_KEYS, write: LIBRARY_KEYS },
  'list-library': { read: LIBRARY_KEYS, write: [] },
  // CHECKOUT#: the holds on the item are checkout records; an erasure reads them and breaks unpayable ones.
  'delete-library-item': {
    read: [...LIBRARY_KEYS, 'CHECKOUT#*'].sort(),
    write: [...LIBRARY_KEYS, 'CHECKOUT#*'].sort(),
  },
  'create-webhook': { read: ['WEBHOOK#*'], write: ['WEBHOOK#*', 'WEBHOOKSUB#*'] },
  'list-webhooks': { read: ['WEBHOOK#*'], write: [] },
  'get-webhook': { read: ['WEBHOOK#*'], write: [] },
  'update-webhook': { read: ['WEBHOOK#*'], write: ['WEBHOOK#*', 'WEBHOOKSUB#*'] },
  'delete-webhook': { read: ['WEBHOOK#*'], write: ['WEBHOOK#*', 'WEBHOOKSUB#*'] },
  'rotate-webhook-secret': { read: ['WEBHOOK#*'], write: ['WEBHOOK#*', 'WEBHOOKSUB#*'] },
  'list-webhook-deliveries': { read: ['WEBHOOK#*', 'WHDELIVERY#*'], write: [] },
  'redeliver-webhook-delivery': { read: ['WEBHOOK#*', 'WHDELIVERY#*'], write: ['WHDELIVERY#*'] },
};

/** Library routes that must reach another prefix, and why (the loop below holds every other to none). */
const LIBRARY_EXCEPTIONS: Record<string, string> = { 'delete-library-item': 'CHECKOUT#*' };

describe('leading keys (which items a function may touch)', () => {
  const tableRoles = () => [
    stack.authorizers.handlerFunction,
    stack.librarySweeper.handlerFunction,
    ...stack.api.endpoints.map((e) => e.endpoint),
  ];

  it('puts a LeadingKeys condition on every table statement', () => {
    for (const endpoint of tableRoles()) {
      for (const statement of statementsOf(endpoint.role)) {
        if (![statement.Action].flat().some((action) => ITEM_ACTIONS.includes(action))) continue;
        const patterns = statement.Condition?.[LEADING_KEYS]?.['dynamodb:LeadingKeys'];
        expect(Object.keys(statement.Condition ?? {}), endpoint.handlerName).toEqual([LEADING_KEYS]);
        expect(
          Array.isArray(patterns) && patterns.length > 0 && patterns.every((p: string) => /^[A-Z]+#\*$/.test(p)),
          `${endpoint.handlerName}: ${JSON.stringify(patterns)}`,
        ).toBe(true);
      }
    }
  });

  it('gives each route group its own key prefixes, and nothing of the others', () => {
    for (const route of routes.filter((r) => r.grants.table !== undefined)) {
      expect(leadingKeysOf(endpointOf(route).role), route.handler).toEqual(EXPECTED_KEYS[route.handler]);
    }
    for (const handler of Object.keys(EXPECTED_KEYS).filter((name) => name.includes('library'))) {
      const { read, write } = EXPECTED_KEYS[handler]!;
      for (const foreign of ['APIKEY#*', 'USER#*', 'ORDER#*', 'CHECKOUT#*', 'PROJECT#*'])
        if (LIBRARY_EXCEPTIONS[handler] !== foreign) expect([...read, ...write], handler).not.toContain(foreign);
    }
  });

  it('lets the authorizer read API keys only, the sweeper read owners and what an ended hold releases, the publisher no item', () => {
    expect(leadingKeysOf(stack.authorizers.handlerFunction.role)).toEqual({ read: ['APIKEY#*'], write: [] });
    // Issue 33: an ended artwork hold's checkout, its artwork, the deferred erasures it releases.
    expect(leadingKeysOf(stack.librarySweeper.handlerFunction.role)).toEqual({
      read: ['ANONUSER#*', 'CHECKOUT#*', 'ERASE#*', 'PROJECT#*'],
      write: ['CHECKOUT#*', 'ERASE#*'],
    });
    expect(leadingKeysOf(stack.eventPublisher.handlerFunction.role)).toEqual({ read: [], write: [] });
  });

  it('lets the webhook fan-out read subscriptions and write deliveries, the delivery function webhooks and deliveries only', () => {
    expect(leadingKeysOf(stack.webhooks.fanout.handlerFunction.role)).toEqual({
      read: ['WEBHOOKSUB#*'],
      write: ['WHDELIVERY#*'],
    });
    expect(leadingKeysOf(stack.webhooks.deliveries.handlerFunction.role)).toEqual({
      read: ['WEBHOOK#*', 'WHDELIVERY#*'],
      write: ['WEBHOOK#*', 'WEBHOOKSUB#*', 'WHDELIVERY#*'],
    });
  });
});

describe('data', () => {
  it('creates the single table from functions/store/table.ts: on demand, PITR, encrypted, retained, protected', () => {
    const [id, table] = ofType('AWS::DynamoDB::Table')[0]!;
    const p = table.Properties;
    expect(p.KeySchema).toEqual([
      { AttributeName: tableSchema.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableSchema.sortKey, KeyType: 'RANGE' },
    ]);
    expect(
      p.GlobalSecondaryIndexes.map((index: Json) => [
        index.IndexName,
        index.KeySchema.map((k: Json) => k.AttributeName),
      ]),
    ).toEqual(
      tableSchema.globalSecondaryIndexes.map((index) => [index.indexName, [index.partitionKey, index.sortKey]]),
    );
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: tableSchema.timeToLiveAttribute, Enabled: true });
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(p.SSESpecification).toEqual({ SSEEnabled: true });
    expect(p.DeletionProtectionEnabled).toBe(true);
    expect(resources[id]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('keeps images private, TLS-only, encrypted, access-logged, and expires abandoned uploads', () => {
    const images = resources[logicalId(stack.data.bucket)];
    const p = images.Properties;
    expect(images.DeletionPolicy).toBe('Retain');
    expect(p.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(p.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe(
      'AES256',
    );
    expect(p.LoggingConfiguration.DestinationBucketName).toBeDefined();
    const rules = p.LifecycleConfiguration.Rules;
    expect(rules).toContainEqual(
      expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
    );
    // The site's upload page PUTs resumable upload parts straight to the bucket and reads each ETag.
    expect(p.CorsConfiguration.CorsRules).toContainEqual(
      expect.objectContaining({
        AllowedMethods: ['PUT'],
        AllowedOrigins: expect.arrayContaining([new URL(config.checkoutUrl).origin]),
        ExposedHeaders: ['ETag'],
      }),
    );
    // Unconfirmed presigned uploads land under the library store's upload prefix and expire there.
    const uploadPrefix = uploadObjectKey('x').slice(0, -1);
    expect(rules).toContainEqual(
      expect.objectContaining({ Prefix: uploadPrefix, ExpirationInDays: 1, Status: 'Enabled' }),
    );
    expect(uploadPrefix).not.toBe('');

    const policy = ofType('AWS::S3::BucketPolicy').find(
      ([, bp]) => JSON.stringify(bp.Properties.Bucket) === JSON.stringify(ref(stack.data.bucket)),
    )![1];
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('has an event bus for the domain events, named in the outputs', () => {
    expect(ofType('AWS::Events::EventBus')).toHaveLength(1);
    const outputs = template.toJSON().Outputs;
    for (const name of ['ApiUrl', 'TableName', 'BucketName', 'EventBusName', 'DashboardUrl', 'AlarmTopicArn'])
      expect(outputs[name], name).toBeDefined();
  });
});

describe('API stage and gateway responses', () => {
  it('traces, throttles and writes JSON access logs', () => {
    const [, stage] = ofType('AWS::ApiGateway::Stage')[0]!;
    const p = stage.Properties;
    expect(p.StageName).toBe('dev');
    expect(p.TracingEnabled).toBe(true);
    expect(p.MethodSettings).toContainEqual(
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
        ThrottlingRateLimit: 1000,
        ThrottlingBurstLimit: 2000,
      }),
    );
    // Valid JSON once API Gateway puts numbers in for status and latency.
    const format = JSON.parse(
      p.AccessLogSetting.Format.replace('$context.status', '200').replace('$context.responseLatency', '12'),
    );
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: 200,
      latencyMs: 12,
      errorType: '$context.error.responseType',
      principalId: '$context.authorizer.principalId',
      resource: '$context.resourcePath',
    });
    // The route by its resource path only: the path itself carries checkout ids and builder tokens.
    expect(p.AccessLogSetting.Format).not.toMatch(/\$context\.path\b/);
    expect(Object.values(format).filter((value) => /path/i.test(String(value)))).toEqual(['$context.resourcePath']);
    expect(ofType('AWS::ApiGateway::Account')).toHaveLength(1);
  });

  it('answers API Gateway refusals in the service error shape with a JSON content type', () => {
    const responses = Object.fromEntries(
      ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => [r.Properties.ResponseType, r.Properties]),
    );
    const expected: Record<string, [string | undefined, string]> = {
      UNAUTHORIZED: ['401', 'Unauthorized'],
      ACCESS_DENIED: ['403', 'Forbidden'],
      THROTTLED: ['429', 'TooManyRequests'],
      REQUEST_TOO_LARGE: ['413', 'PayloadTooLarge'],
      MISSING_AUTHENTICATION_TOKEN: ['404', 'RouteNotFound'],
      DEFAULT_5XX: [undefined, 'InternalError'],
    };
    for (const [type, [status, code]] of Object.entries(expected)) {
      const response = responses[type];
      expect(response, type).toBeDefined();
      expect(response.StatusCode).toBe(status);
      expect(response.ResponseParameters['gatewayresponse.header.Content-Type']).toBe(
        "'application/json; charset=utf-8'",
      );
      const body = JSON.parse(response.ResponseTemplates['application/json']);
      expect(body.Error.Code).toBe(code);
      expect(typeof body.Error.Message).toBe('string');
    }
    // What the OpenAPI document says of 429, 504 and 500: a wait to retry after.
    for (const type of ['THROTTLED', 'INTEGRATION_TIMEOUT', 'DEFAULT_5XX'])
      expect(responses[type].ResponseParameters['gatewayresponse.header.Retry-After'], type).toBe("'1'");
    // Missing credentials: what to send, and RFC 6750's challenge. Forbidden: the authorizer's own sentence.
    expect(JSON.parse(responses.UNAUTHORIZED.ResponseTemplates['application/json']).Error.Message).toContain(
      'Authorization: Bearer <token>',
    );
    expect(responses.UNAUTHORIZED.ResponseParameters['gatewayresponse.header.WWW-Authenticate']).toBe(
      `'Bearer realm="photo-commerce"'`,
    );
    expect(responses.ACCESS_DENIED.ResponseTemplates['application/json']).toBe(
      '{"Error":{"Code":"Forbidden","Message":"$context.authorizer.forbidden"}}',
    );
    expect(responses.INVALID_API_KEY.StatusCode).toBe('403');
    expect(responses.DEFAULT_4XX.ResponseTemplates['application/json']).toContain('"Error":{"Code":');
  });
});

describe('monitoring', () => {
  it('counts refused credentials, which reach their handler, from the access log by their principalId', () => {
    const patterns = ofType('AWS::Logs::MetricFilter').map(([, f]) => f.Properties);
    const refused = patterns.find((filter) => filter.MetricTransformations[0].MetricName === 'RefusedCredentials');
    expect(refused?.FilterPattern).toBe('{ $.principalId = "refused" }');
  });

  it('shows every metric the functions emit, per-endpoint figures, cold starts and storage', () => {
    // emitMetrics takes only names from the one list (functions/shared/metric-names.ts): all of it must be shown.
    const emitted = Object.values(METRIC);
    const body = dashboardBody();
    // The body is JSON inside JSON: its quotes appear escaped.
    const missing = [
      ...[...emitted].map((name) => `\\"${name}\\"`),
      ...routes.map((route) => `\\"label\\":\\"${route.handler}\\"`),
      '\\"p50\\"',
      '\\"p99\\"',
      '5XXError',
      '4XXError',
      'Throttles',
      '@initDuration',
      'ConsumedReadCapacityUnits',
      'WriteThrottleEvents',
      'BucketSizeBytes',
      'GatewayRefusals',
    ].filter((text) => !body.includes(text));
    expect(missing).toEqual([]);
  });

  it('alarms on 5xx rate, p99 latency, function failures and table throttles, all to the SNS topic', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const names = alarms.map((a) => a.AlarmName);
    expect(names).toEqual(
      expect.arrayContaining([
        'photo-commerce-dev-api-5xx-rate',
        'photo-commerce-dev-api-p99-latency',
        'photo-commerce-dev-table-throttles',
      ]),
    );
    for (const route of routes) expect(names).toContain(`photo-commerce-dev-${route.handler}-failures`);
    expect(names).toContain('photo-commerce-dev-authorizer-failures');
    const topic = ref(stack.monitoring.topic);
    for (const alarm of alarms) expect(alarm.AlarmActions, alarm.AlarmName).toEqual([topic]);
    const rate = alarms.find((a) => a.AlarmName.endsWith('api-5xx-rate'));
    expect(rate).toMatchObject({ MetricName: '5XXError', Statistic: 'Average', Threshold: 0.01 });
    const latency = alarms.find((a) => a.AlarmName.endsWith('api-p99-latency'));
    expect(latency).toMatchObject({ MetricName: 'Latency', ExtendedStatistic: 'p99', Threshold: 2500 });
    // A second payment for a paid checkout: one is enough to alarm (a refund is due).
    const paidTwice = alarms.find((a) => a.AlarmName.endsWith('checkout-paid-twice'));
    expect(paidTwice).toMatchObject({ Threshold: 1, EvaluationPeriods: 1, DatapointsToAlarm: 1 });
    expect(paidTwice.Metrics[0].MetricStat).toMatchObject({
      Metric: {
        Namespace: 'PhotoCommerce',
        MetricName: 'CheckoutPaidTwice',
        Dimensions: [{ Name: 'service', Value: 'photo-commerce' }],
      },
      Stat: 'Sum',
    });
    expect(dashboardBody()).toContain('CheckoutPaidTwice');
  });
});

describe('table stream', () => {
  it('carries old and new images, and feeds the functions the local stream feeds, with the same filters', () => {
    expect(resources[logicalId(stack.data.table)].Properties.StreamSpecification).toEqual({
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    });
    const consumers = [stack.librarySweeper, stack.eventPublisher];
    const streamMappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) => mapping.Properties.EventSourceArn?.['Fn::GetAtt']?.[1] === 'StreamArn',
    );
    expect(streamMappings).toHaveLength(consumers.length);
    // npm start runs the same handlers on the same filtered records (lib/local/stream-consumers.ts).
    expect(
      consumers
        .map((consumer) => ({
          name: consumer.handlerFunction.handlerName,
          filter: JSON.parse(mappingOf(consumer).FilterCriteria.Filters[0].Pattern),
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual(
      STREAM_CONSUMERS.map(({ name, filter }) => ({ name, filter })).sort((a, b) => a.name.localeCompare(b.name)),
    );
    for (const consumer of [stack.librarySweeper, stack.eventPublisher]) {
      const queue = resources[logicalId(consumer.deadLetters)].Properties;
      expect(queue, consumer.name).toMatchObject({
        QueueName: `photo-commerce-dev-${consumer.name}-dlq`,
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
    }
  });
});

describe('library sweeper', () => {
  it('reads the table stream: TTL deletions of intents and pending uploads only, failures retried then dead-lettered', () => {
    const mapping = mappingOf(stack.librarySweeper);
    expect(mapping).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 25,
      MaximumBatchingWindowInSeconds: 10,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 5,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(mapping.MaximumRecordAgeInSeconds).toBeUndefined();
    expect(mapping.DestinationConfig.OnFailure.Destination).toEqual(arnOf(stack.librarySweeper.deadLetters));
    expect(JSON.parse(mapping.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['REMOVE'],
      userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
      dynamodb: { OldImage: { Type: { S: [...SWEPT_RECORD_TYPES] } } },
    });
  });

  it('writes only erasure intents and checkouts (releasing holds), and deletes only library, staging and held objects', () => {
    const statements = statementsOf(stack.librarySweeper.handlerFunction.role);
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(
      actions
        .filter(
          (action) =>
            action.startsWith('dynamodb:') &&
            !action.includes('Stream') &&
            !action.startsWith('dynamodb:GetRecords') &&
            !action.startsWith('dynamodb:GetShard'),
        )
        .sort(),
    ).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(actions.filter((action) => action.startsWith('s3:')).sort()).toEqual([
      's3:AbortMultipartUpload',
      's3:DeleteObject',
      's3:ListBucket',
    ]);
    const aborts = statements.find((statement) => [statement.Action].flat().includes('s3:AbortMultipartUpload'));
    expect(aborts?.Resource).toEqual({ 'Fn::Join': ['', [arnOf(stack.data.bucket), '/library/*']] });
    const bucket = arnOf(stack.data.bucket);
    const deletes = statements.find((statement) => [statement.Action].flat().includes('s3:DeleteObject'));
    expect(deletes?.Resource).toEqual([
      { 'Fn::Join': ['', [bucket, '/library/*']] },
      { 'Fn::Join': ['', [bucket, '/uploads/*']] },
      { 'Fn::Join': ['', [bucket, '/held/*']] },
    ]);
    const lists = statements.find((statement) => [statement.Action].flat().includes('s3:ListBucket'));
    expect(lists).toMatchObject({ Resource: bucket, Condition: { StringLike: { 's3:prefix': ['library/*'] } } });
    const streamReads = statements.find((statement) => [statement.Action].flat().includes('dynamodb:GetRecords'));
    expect(streamReads?.Resource).toEqual({ 'Fn::GetAtt': [logicalId(stack.data.table), 'StreamArn'] });
  });

  it('alarms on dead letters and on its own failures, and shows what it swept', () => {
    const names = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties.AlarmName);
    expect(names).toEqual(
      expect.arrayContaining([
        'photo-commerce-dev-library-sweeper-dead-letters',
        'photo-commerce-dev-sweep-library-leftovers-failures',
      ]),
    );
    const body = dashboardBody();
    for (const text of [
      'LibraryLeftoversSwept',
      'LibraryItemsSwept',
      'IteratorAge',
      'ApproximateNumberOfMessagesVisible',
    ])
      expect(body).toContain(text);
  });
});

describe('webhooks', () => {
  const kmsActions = (role: IConstruct) => actionsOf(role).filter((action) => action.startsWith('kms:'));

  it('lets only the management routes encrypt and only the delivery function decrypt secrets, with a webhook id as context', () => {
    for (const route of routes)
      expect(kmsActions(endpointOf(route).role), route.handler).toEqual([
        ...(route.grants.webhookSecrets === 'seal' ? ['kms:Encrypt'] : []),
        ...(route.grants.artworkLinks ? ['kms:GenerateMac'] : []),
      ]);
    expect(kmsActions(stack.webhooks.deliveries.handlerFunction.role)).toEqual(['kms:Decrypt']);
    expect(kmsActions(stack.webhooks.fanout.handlerFunction.role)).toEqual([]);
    const decrypt = statementsOf(stack.webhooks.deliveries.handlerFunction.role).find((statement) =>
      [statement.Action].flat().includes('kms:Decrypt'),
    );
    expect(decrypt?.Resource).toEqual(arnOf(stack.data.webhookSecrets));
    expect(decrypt?.Condition).toEqual({
      'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['WebhookId'] },
      Null: { 'kms:EncryptionContextKeys': 'false' },
    });
    const key = resources[logicalId(stack.data.webhookSecrets)];
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
  });

  it("lets the artwork read and the DownloadLink's function make MACs with the links' HMAC key only", () => {
    expect(routes.filter((route) => route.grants.artworkLinks).map((route) => route.handler)).toEqual([
      'get-order-artwork',
      'follow-artwork-link',
    ]);
    for (const route of routes.filter((candidate) => candidate.grants.artworkLinks)) {
      const mac = statementsOf(endpointOf(route).role).find((statement) =>
        [statement.Action].flat().includes('kms:GenerateMac'),
      );
      expect(mac?.Resource, route.handler).toEqual(arnOf(stack.data.artworkLinks));
    }
    const key = resources[logicalId(stack.data.artworkLinks)];
    expect(key.Properties).toMatchObject({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' });
    expect(key.DeletionPolicy).toBe('Retain');
  });

  it('sends to the deliveries queue from the fan-out and the redeliver route only', () => {
    const sends = (role: IConstruct) => actionsOf(role).includes('sqs:SendMessage');
    expect(sends(stack.webhooks.fanout.handlerFunction.role)).toBe(true);
    for (const route of routes)
      expect(sends(endpointOf(route).role), route.handler).toBe(route.grants.webhookDeliveries === true);
  });

  it('keeps a delivery longer than the retry schedule, for more receipts than attempts, then dead-letters it', () => {
    const queue = resources[logicalId(stack.webhooks.deliveries.queue)].Properties;
    expect(queue.MessageRetentionPeriod).toBe(14 * 24 * 60 * 60);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: arnOf(stack.webhooks.deliveries.deadLetters),
      maxReceiveCount: 20,
    });
    const names = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties.AlarmName);
    expect(names).toEqual(
      expect.arrayContaining([
        'photo-commerce-dev-webhook-fanout-dead-letters',
        'photo-commerce-dev-webhook-deliveries-dead-letters',
      ]),
    );
  });

  it('routes every subscribable event type of the bus to the fan-out queue', () => {
    const rule = ofType('AWS::Events::Rule').find(
      ([, candidate]) => candidate.Properties.Name === 'photo-commerce-dev-webhooks',
    )!;
    expect(rule[1].Properties.EventPattern['detail-type']).toEqual(WEBHOOK_EVENT_TYPES);
    expect(rule[1].Properties.Targets[0].Arn).toEqual(arnOf(stack.webhooks.fanout.queue));
  });
});

describe('renditions', () => {
  it('routes LibraryItemsAdded from the bus to a queue with a dead-letter queue after 3 deliveries', () => {
    const [, rule] = ofType('AWS::Events::Rule').find(
      ([, rule]) => rule.Properties.Name === 'photo-commerce-dev-renditions',
    )!;
    expect(rule.Properties.EventPattern).toEqual({ source: ['photo-commerce'], 'detail-type': ['LibraryItemsAdded'] });
    expect(rule.Properties.EventBusName).toEqual(ref(stack.data.bus));
    expect(rule.Properties.Targets).toEqual([
      expect.objectContaining({
        Arn: arnOf(stack.renditions.queue),
        DeadLetterConfig: { Arn: arnOf(stack.renditions.deadLetters) },
      }),
    ]);
    const queue = resources[logicalId(stack.renditions.queue)].Properties;
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: arnOf(stack.renditions.deadLetters),
      maxReceiveCount: 3,
    });
    expect(queue.VisibilityTimeout).toBe(1800);
    const mapping = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, mapping]) => mapping.Properties)
      .find((mapping) => JSON.stringify(mapping.EventSourceArn) === JSON.stringify(arnOf(stack.renditions.queue)));
    expect(mapping).toMatchObject({
      FunctionName: ref(stack.renditions.handlerFunction.function),
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('runs on arm64 with the measured memory, told how many deliveries the queue makes', () => {
    const fn = resources[logicalId(stack.renditions.handlerFunction.function)].Properties;
    expect(fn).toMatchObject({ Architectures: ['arm64'], MemorySize: 1769, Timeout: 300 });
    expect(fn.Environment.Variables.RENDITION_MAX_ATTEMPTS).toBe('3');
  });

  it('reads and updates library items and entries only, puts outbox records only, and reads, writes and deletes library objects only', () => {
    expect(leadingKeysOf(stack.renditions.handlerFunction.role)).toEqual({
      read: ['LIBITEM#*'],
      write: ['LIBITEM#*', 'LIBUSER#*', 'OUTBOX#*'],
    });
    const puts = statementsOf(stack.renditions.handlerFunction.role).find((statement) =>
      [statement.Action].flat().includes('dynamodb:PutItem'),
    );
    expect([puts?.Action].flat()).toEqual(['dynamodb:PutItem']);
    expect(puts?.Condition[LEADING_KEYS]['dynamodb:LeadingKeys']).toEqual(['OUTBOX#*']);
    const statements = statementsOf(stack.renditions.handlerFunction.role);
    const writes = statements.find((statement) => [statement.Action].flat().includes('dynamodb:UpdateItem'));
    expect([writes?.Action].flat()).toEqual(['dynamodb:UpdateItem']);
    expect(writes?.Condition[LEADING_KEYS]['dynamodb:LeadingKeys']).toEqual(['LIBITEM#*', 'LIBUSER#*']);
    const objects = statements.find((statement) => [statement.Action].flat().includes('s3:GetObject'));
    expect(objects?.Action).toEqual(['s3:GetObject', 's3:PutObject', 's3:DeleteObject']);
    expect(objects?.Resource).toEqual({ 'Fn::Join': ['', [arnOf(stack.data.bucket), '/library/*']] });
  });

  it('alarms on dead letters and on its own failures, and shows what it made', () => {
    const names = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties.AlarmName);
    expect(names).toEqual(
      expect.arrayContaining([
        'photo-commerce-dev-renditions-dead-letters',
        'photo-commerce-dev-make-renditions-failures',
      ]),
    );
    for (const text of ['RenditionsReady', 'RenditionsFailed', 'ApproximateAgeOfOldestMessage'])
      expect(dashboardBody()).toContain(text);
  });
});

describe('bounded queue consumers', () => {
  const queueMappingOf = (queue: IConstruct) =>
    ofType('AWS::Lambda::EventSourceMapping')
      .map(([, mapping]) => mapping.Properties)
      .find((mapping) => JSON.stringify(mapping.EventSourceArn) === JSON.stringify(arnOf(queue)));

  it('makes at most 100 renditions, 20 webhook fan-outs and 20 deliveries at once by default, leaving the API its concurrency', () => {
    expect(queueMappingOf(stack.renditions.queue).ScalingConfig).toEqual({
      MaximumConcurrency: CONSUMER_CONCURRENCY.renditions.fallback,
    });
    expect(queueMappingOf(stack.webhooks.fanout.queue).ScalingConfig).toEqual({
      MaximumConcurrency: CONSUMER_CONCURRENCY.webhookFanout.fallback,
    });
    expect(queueMappingOf(stack.webhooks.deliveries.queue).ScalingConfig).toEqual({
      MaximumConcurrency: CONSUMER_CONCURRENCY.webhookDeliveries.fallback,
    });
    expect([
      CONSUMER_CONCURRENCY.renditions.fallback,
      CONSUMER_CONCURRENCY.webhookFanout.fallback,
      CONSUMER_CONCURRENCY.webhookDeliveries.fallback,
    ]).toEqual([100, 20, 20]);
  });
});

describe('event publisher', () => {
  it('gets new outbox records from the table stream, at once, retried for an hour, then dead-lettered', () => {
    const fn = resources[logicalId(stack.eventPublisher.handlerFunction.function)].Properties;
    expect(fn).toMatchObject({ FunctionName: 'photo-commerce-dev-publish-events', Runtime: 'nodejs24.x', Timeout: 30 });
    const mapping = mappingOf(stack.eventPublisher);
    expect(JSON.parse(mapping.FilterCriteria.Filters[0].Pattern)).toEqual(OUTBOX_STREAM_FILTER);
    expect(mapping.FilterCriteria.Filters).toHaveLength(1);
    expect(mapping).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 0,
      MaximumRetryAttempts: 10_000,
      MaximumRecordAgeInSeconds: 3600,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // One batch per shard at a time: each outbox record is its own item, so a larger factor would not keep
    // an order's events in order.
    expect(mapping.ParallelizationFactor).toBe(1);
    expect(mapping.DestinationConfig.OnFailure.Destination).toEqual(arnOf(stack.eventPublisher.deadLetters));
  });

  it('may put events on the bus and read the stream, and nothing else: no table item, no object', () => {
    const statements = statementsOf(stack.eventPublisher.handlerFunction.role);
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions.filter((action) => action.startsWith('dynamodb:')).sort()).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
    ]);
    expect(actions.filter((action) => ITEM_ACTIONS.includes(action) || action === 'dynamodb:Scan')).toEqual([]);
    expect(actions.filter((action) => action.startsWith('s3:'))).toEqual([]);
    const puts = statements.filter((statement) => [statement.Action].flat().includes('events:PutEvents'));
    expect(puts).toEqual([{ Action: 'events:PutEvents', Effect: 'Allow', Resource: arnOf(stack.data.bus) }]);
    expect(actions.filter((action) => action.startsWith('events:'))).toEqual(['events:PutEvents']);
    const streamReads = statements.find((statement) => [statement.Action].flat().includes('dynamodb:GetRecords'));
    expect(streamReads?.Resource).toEqual({ 'Fn::GetAtt': [logicalId(stack.data.table), 'StreamArn'] });
    const sends = statements.find((statement) => [statement.Action].flat().includes('sqs:SendMessage'));
    expect(sends?.Resource).toEqual(arnOf(stack.eventPublisher.deadLetters));
    const env = resources[logicalId(stack.eventPublisher.handlerFunction.function)].Properties.Environment.Variables;
    expect(env.EVENT_BUS_NAME).toEqual(ref(stack.data.bus));
    expect('TABLE_NAME' in env).toBe(false);
    expect('BUCKET_NAME' in env).toBe(false);
  });

  it('alarms on its failures, dead letters and late events, and shows what it published', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    const named = (name: string) => {
      const found = alarms.find((alarm) => alarm.AlarmName === `photo-commerce-dev-${name}`);
      expect(found, name).toBeDefined();
      return found;
    };
    expect(JSON.stringify(named('publish-events-failures').Metrics)).toContain(
      logicalId(stack.eventPublisher.handlerFunction.function),
    );
    const deadLetters = named('event-publisher-dead-letters');
    expect(deadLetters).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
    expect(deadLetters.Dimensions[0].Value).toEqual({
      'Fn::GetAtt': [logicalId(stack.eventPublisher.deadLetters), 'QueueName'],
    });
    expect(JSON.stringify(deadLetters.AlarmDescription)).toContain('could not be published after the retries');
    expect(JSON.stringify(deadLetters.AlarmDescription)).toContain('docs/operations.md');
    expect(named('event-publisher-late')).toMatchObject({
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Threshold: 60_000,
      Dimensions: [{ Name: 'FunctionName', Value: ref(stack.eventPublisher.handlerFunction.function) }],
    });
    // The sweeper: nobody waits for it, so no lateness alarm.
    expect(alarms.map((alarm) => alarm.AlarmName)).not.toContain('photo-commerce-dev-library-sweeper-late');
    const body = dashboardBody();
    const publisher = logicalId(stack.eventPublisher.handlerFunction.function);
    for (const text of [
      'Event publisher: domain events put on the bus, and dead letters',
      '\\"EventsPublished\\"',
      `"Fn::GetAtt":["${logicalId(stack.eventPublisher.deadLetters)}","QueueName"]`,
      `IteratorAge\\",\\"FunctionName\\",\\"",{"Ref":"${publisher}"}`,
      `Errors\\",\\"FunctionName\\",\\"",{"Ref":"${publisher}"}`,
    ])
      expect(body.includes(text), text).toBe(true);
  });
});

describe('cdk-nag AwsSolutions and Serverless packs', () => {
  it('finds nothing that is not acknowledged', () => {
    expect(nagViolations(stack)).toEqual([]);
  });

  it('has a specific written reason on every acknowledgment', () => {
    const reasons: string[] = [];
    const visit = (construct: IConstruct) => {
      for (const entry of construct.node.metadata) {
        if (entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          reasons.push(...Object.values(entry.data as Record<string, string>));
      }
      construct.node.children.forEach(visit);
    };
    visit(stack);
    expect(reasons.length).toBeGreaterThan(0);
    for (const reason of reasons) expect(String(reason).length, String(reason)).toBeGreaterThan(60);
  });
});

describe('the CDK app', () => {
  it('synthesizes offline with no account, with the cdk-nag plugin passing (bin/app.ts)', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-app-'));
    try {
      const node = process.execPath;
      await promisify(execFile)(node, ['bin/app.ts'], {
        cwd: new URL('../../', import.meta.url).pathname,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          CDK_OUTDIR: outdir,
          CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [] }),
        },
      });
      // The root's template, then one per route group.
      const groups = new Set(routes.map(routeGroupOf)).size;
      expect(readSynthesizedTemplates(outdir, 'PhotoCommerce-dev').map(({ file }) => file)).toEqual([
        'PhotoCommerce-dev.template.json',
        ...Array.from({ length: groups }, () =>
          expect.stringMatching(/^PhotoCommercedevApi\w+\.nested\.template\.json$/),
        ),
      ]);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});
