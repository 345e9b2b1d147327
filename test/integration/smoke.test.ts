/**
 * The smoke flow a deployer runs against their stage (npm run smoke), here against the local service, with
 * pull from a loopback image server (PULL_ALLOW_LOOPBACK=true), and through the CLI itself once.
 *
 * Locally nothing enforces IAM, so the flow also records every DynamoDB and S3 call each route's handler
 * makes and checks it against the actions the CDK stack grants that route: a missing grant would
 * otherwise only show as AccessDenied in AWS. It records the partition key every table call names too,
 * and checks it against the route's key prefixes (the stack's dynamodb:LeadingKeys conditions).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSmoke } from '../../lib/smoke.ts';
import { SMOKE_PNG } from '../../lib/smoke/session.ts';
import { authorizerTableGrant, routes, type TableGrant } from '../../functions/routes.ts';
import type { ApiKeyScope } from '../../functions/auth/principal.ts';
import { matchRoute } from '../../lib/local/route-matching.ts';
import { grantedActions } from '../../lib/constructs/handler-function.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let images: Server;
let imageUrl: string;
let credentials: { token: string; keys: Record<ApiKeyScope, string> };

/** Handler name -> IAM actions its calls needed, while the smoke flow ran. */
const observed = new Map<string, Set<string>>();
/** Handler name -> `read|write <partition key>` of every table call it made. */
const observedKeys = new Map<string, Set<string>>();
let currentHandler: string | undefined;

const DOCUMENT_COMMANDS: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
};
/** S3 operations and the IAM actions they need (multipart parts are s3:PutObject; a copy reads and writes). */
const S3_ACTIONS: Record<string, string[]> = {
  PutObject: ['s3:PutObject'],
  CreateMultipartUpload: ['s3:PutObject'],
  UploadPart: ['s3:PutObject'],
  CompleteMultipartUpload: ['s3:PutObject'],
  AbortMultipartUpload: ['s3:AbortMultipartUpload'],
  GetObject: ['s3:GetObject'],
  HeadObject: ['s3:GetObject'],
  CopyObject: ['s3:GetObject', 's3:PutObject'],
  DeleteObject: ['s3:DeleteObject'],
  DeleteObjects: ['s3:DeleteObject'],
  ListObjectsV2: ['s3:ListBucket'],
};

function note(actions: string[]) {
  if (currentHandler === undefined) return;
  const set = observed.get(currentHandler) ?? new Set<string>();
  for (const action of actions) set.add(action);
  observed.set(currentHandler, set);
}

const READ_OPERATIONS = new Set(['GetItem', 'BatchGetItem', 'Query']);

/** IAM has no action for a TransactWriteItems: each of its actions needs its own, on its own key. */
const TRANSACT_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/** A table call as IAM sees it: one `[action, input]` per call, or per action of a TransactWriteItems. */
function iamCalls(operation: string, input: Record<string, any>): [string, Record<string, any>][] {
  if (operation !== 'TransactWriteItems') return [[operation, input]];
  return (input.TransactItems as Record<string, Record<string, any>>[]).map((member) => {
    const [kind, action] = Object.entries(member)[0] as [string, Record<string, any>];
    return [TRANSACT_ACTIONS[kind] ?? kind, action];
  });
}
/** A key attribute as the client holds it: plain before the DocumentClient marshals it, `{ S }` after. */
const keyText = (value: unknown): string =>
  typeof value === 'object' && value !== null && 'S' in value ? String((value as { S: unknown }).S) : String(value);

/** The partition keys a table call names (the values IAM's dynamodb:LeadingKeys sees). */
function partitionKeys(operation: string, input: Record<string, any>): string[] {
  if (operation === 'Query') {
    const placeholder = /(?:^|\s)PK\s*=\s*(:\w+)/.exec(input.KeyConditionExpression ?? '')?.[1];
    return placeholder ? [keyText(input.ExpressionAttributeValues[placeholder])] : [];
  }
  if (operation === 'BatchGetItem')
    return Object.values(input.RequestItems as Record<string, { Keys: any[] }>).flatMap((request) =>
      request.Keys.map((key) => keyText(key.PK)),
    );
  if (operation === 'BatchWriteItem') {
    return Object.values(input.RequestItems as Record<string, any[]>).flatMap((writes) =>
      writes.map((write) => keyText((write.PutRequest?.Item ?? write.DeleteRequest?.Key).PK)),
    );
  }
  return [keyText((input.Key ?? input.Item)?.PK)];
}

function noteKeys(operation: string, input: Record<string, any>) {
  if (currentHandler === undefined) return;
  const set = observedKeys.get(currentHandler) ?? new Set<string>();
  for (const key of partitionKeys(operation, input))
    set.add(`${READ_OPERATIONS.has(operation) ? 'read' : 'write'} ${key}`);
  observedKeys.set(currentHandler, set);
}

/** The service's own clients, imported once the service has set their environment (as in Lambda). */
async function recordCalls() {
  const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
  const { s3 } = await import('../../functions/shared/clients/s3.ts');
  dynamoDbClient.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName).replace(/Command$/, '');
      for (const [action, input] of iamCalls(
        DOCUMENT_COMMANDS[operation] ?? operation,
        args.input as Record<string, any>,
      )) {
        note([`dynamodb:${action}`]);
        noteKeys(action, input);
      }
      return next(args);
    },
    { step: 'initialize', name: 'recordGrantUse' },
  );
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName).replace(/Command$/, '');
      note(S3_ACTIONS[operation] ?? [`s3:${operation}`]);
      return next(args);
    },
    { step: 'initialize', name: 'recordGrantUse' },
  );
}

/**
 * fetch that notes which route (handler) the smoke flow is calling; the flow is sequential, so everything
 * in between is that route's. (No route publishes events: they record them in their transactions, and the
 * table stream's publisher puts them on the bus.)
 */
const routedFetch: typeof fetch = async (input, init) => {
  const url = new URL(String(input));
  const match =
    url.origin === new URL(service.url).origin
      ? matchRoute(routes, (init?.method ?? 'GET').toUpperCase(), url.pathname)
      : undefined;
  currentHandler = typeof match === 'object' ? match.route.handler : undefined;
  try {
    return await fetch(input, init);
  } finally {
    currentHandler = undefined;
  }
};

beforeAll(async () => {
  // Each SDK call is put down to the route being served; renditions made in the background (in AWS, by a
  // function of their own, whose grants test/infra/stack.test.ts checks) would be put down to another.
  service = await startTestService({ env: { PULL_ALLOW_LOOPBACK: 'true' }, renditions: false });
  images = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(SMOKE_PNG.length) });
    response.end(SMOKE_PNG);
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/smoke.png`;
  await recordCalls();
  credentials = {
    token: await service.token('smoke-user'),
    keys: {
      library: await service.apiKey('smoke-app', 'library'),
      site: await service.apiKey('smoke-site', 'site'),
      catalog: await service.apiKey('smoke-catalog', 'catalog'),
      fulfilment: await service.apiKey('smoke-fulfilment', 'fulfilment'),
    },
  };
});

afterAll(async () => {
  await new Promise((resolve) => images?.close(resolve));
  await service?.close();
});

describe('smoke flow', () => {
  it('passes every step against the local service', async () => {
    expect(process.env.EVENTS_FILE).toBeDefined();
    const result = await runSmoke({ url: service.url, imageUrl, fetch: routedFetch, ...credentials });
    expect(result.skipped).toEqual([]);
    expect(result.passed).toEqual([
      'health',
      'credentials are required',
      'project price (catalog key)',
      'basket and lines',
      'checkout',
      'completion (idempotent, site key)',
      'orders',
      'keys open only their scope',
      'push',
      'pull',
      'large-file upload (presigned)',
      'builder',
      'library read',
      'builder resolution (site key)',
      'user library (claim, list, delete)',
    ]);
  });

  it('made only the AWS calls the stack grants each route (IAM is not enforced locally)', () => {
    expect(observed.size).toBeGreaterThan(10);
    // The flows that are one transaction show as their actions' own IAM actions.
    expect([...(observed.get('complete-checkout') ?? [])].sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    expect([...(observed.get('claim-library-items') ?? [])].sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    const denied: string[] = [];
    for (const [handler, actions] of observed) {
      const route = routes.find((r) => r.handler === handler)!;
      const granted = grantedActions(route.grants);
      const allowed = new Set([...granted.table, ...granted.objects, ...granted.bucket, ...granted.bus]);
      for (const action of actions) if (!allowed.has(action)) denied.push(`${handler}: ${action}`);
    }
    expect(denied).toEqual([]);
  });

  it('named only partition keys of the prefixes each route (or the API-key authorizer) is granted', () => {
    const allows = (grant: TableGrant | undefined, access: string, key: string) =>
      [...((access === 'read' ? grant?.read : grant?.write) ?? [])].some((prefix) => key.startsWith(prefix));
    expect(observedKeys.size).toBeGreaterThan(10);
    const denied: string[] = [];
    for (const [handler, keys] of observedKeys) {
      const route = routes.find((r) => r.handler === handler)!;
      for (const call of keys) {
        const [access, key] = call.split(' ') as [string, string];
        // The API-key authorizer runs within the request: its reads are checked against its own grant.
        const grant =
          key.startsWith('APIKEY#') && route.credential !== 'user' ? authorizerTableGrant : route.grants.table;
        if (!allows(grant, access, key)) denied.push(`${handler}: ${call}`);
      }
    }
    expect(denied).toEqual([]);
  });

  it('runs from the command line and skips pull without --image-url', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        'bin/smoke.ts',
        '--url',
        service.url,
        '--token',
        credentials.token,
        ...Object.entries(credentials.keys).flatMap(([scope, key]) => [`--${scope}-key`, key]),
      ],
      { cwd: new URL('../../', import.meta.url).pathname },
    );
    expect(stdout).toContain('ok   builder');
    expect(stdout).toMatch(/smoke passed: \d+ steps, skipped: pull/);
  });
});
