/**
 * The smoke flow a deployer runs against their stage (npm run smoke), here against the local service, with
 * pull from a loopback image server (PULL_ALLOW_LOOPBACK=true), and through the CLI itself once.
 *
 * Locally nothing enforces IAM, so the flow also records every DynamoDB and S3 call each route's handler
 * makes (test/support/iam/sdk-calls.ts) and evaluates it against the synthesized template's policies for
 * that route's function, with the partition keys it names (dynamodb:LeadingKeys): a missing grant would
 * otherwise only show as AccessDenied in AWS. The calls also go to the run's call log and IAM report.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessIt } from '../support/bundles.ts';
import { runSmoke } from '../../lib/smoke.ts';
import { SMOKE_PNG } from '../../lib/smoke/session.ts';
import type { ApiKeyScope } from '../../functions/auth/principal.ts';
import { runningFunction } from '../../lib/local/source-invocations.ts';
import type { AwsCall } from '../../lib/local/aws-call-log.ts';
import { functionCredentials } from '../../lib/local/function-credentials.ts';
import { serviceTemplateAccess } from '../support/iam/check.ts';
import { evaluateCalls } from '../support/iam/evaluate-calls.ts';
import { deniedLine } from '../support/iam/report.ts';
import { recordSdkCalls } from '../support/iam/sdk-calls.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
let images: Server;
let imageUrl: string;
let credentials: { token: string; keys: Record<ApiKeyScope, string> };

let calls: AwsCall[] = [];
/**
 * The service's own clients, imported once the service has set their environment (as in Lambda); each call
 * is put down to the function whose invocation is running (lib/local/source-invocations.ts): the route's,
 * the authorizer's, or one fed in the background meanwhile (the webhook fan-out).
 */
async function recordCalls() {
  const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
  const { s3 } = await import('../../functions/shared/clients/s3.ts');
  calls = recordSdkCalls({ dynamoDb: dynamoDbClient, s3 }, runningFunction);
}

beforeAll(async () => {
  // Renditions are left out of this flow: their own tests exercise them.
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

/**
 * From the bundles, the flow's first call of each of some 25 functions starts its process (a cold start), and
 * the events it causes start the publisher's and the webhook fan-out's: a minute on a busy machine.
 */
const FLOW_TIMEOUT = 120_000;

describe('smoke flow', () => {
  it(
    'passes every step against the local service',
    async () => {
      expect(process.env.EVENTS_FILE).toBeDefined();
      const result = await runSmoke({ url: service.url, imageUrl, ...credentials });
      expect(result.skipped).toEqual([]);
      expect(result.passed).toEqual([
        'health',
        'credentials are required',
        'project price and name (catalog key)',
        'basket and lines',
        'checkout',
        'completion (idempotent, site key)',
        'orders',
        "the customer's cancel before production",
        'keys open only their scope',
        'push',
        'pull',
        'large-file upload (presigned)',
        'builder',
        'library read',
        'builder resolution (site key)',
        'user library (claim, list, delete)',
        'artwork order (project ItemGuids, checkout, completion)',
        "the lab's artwork read (fulfilment key)",
        'erasure waits for the order (202), then the cancelled order lets it go',
      ]);
    },
    FLOW_TIMEOUT,
  );

  inProcessIt(
    'made only the AWS calls the template grants each function (IAM is not enforced locally)',
    async () => {
      const actionsOf = (handler: string) =>
        [
          ...new Set(
            calls
              .filter((call) => call.accessKeyId === functionCredentials(handler).accessKeyId)
              .map((call) => call.action),
          ),
        ].sort();
      expect(new Set(calls.map((call) => call.accessKeyId)).size).toBeGreaterThan(10);
      // The flows that are one transaction show as their actions' own IAM actions.
      expect(actionsOf('complete-checkout')).toEqual([
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]);
      expect(actionsOf('claim-library-items')).toEqual([
        'dynamodb:BatchGetItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]);
      const verdicts = await evaluateCalls(calls, serviceTemplateAccess());
      expect(verdicts.filter((verdict) => !verdict.allowed).map(deniedLine)).toEqual([]);
    },
    180_000,
  );

  it(
    'runs from the command line, finding the server by BASE, and skips pull without --image-url',
    async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          'bin/smoke.ts',
          '--token',
          credentials.token,
          ...Object.entries(credentials.keys).flatMap(([scope, key]) => [`--${scope}-key`, key]),
        ],
        // The server as another terminal finds it: BASE, from the line `npm start` prints.
        { cwd: new URL('../../', import.meta.url).pathname, env: { ...process.env, BASE: service.url } },
      );
      expect(stdout).toContain('ok   builder');
      expect(stdout).toMatch(/smoke passed: \d+ steps, skipped: pull/);
    },
    FLOW_TIMEOUT,
  );
});
