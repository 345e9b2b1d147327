/**
 * Every invocation's log lines carry its own Lambda context and keys, and its metrics its own values, as in
 * AWS, also where the local stack runs every function in one process and several invocations at once
 * (lib/local/source-invocations.ts), as a Lambda environment does that runs several
 * (`AWS_LAMBDA_MAX_CONCURRENCY`; docs/design.md, Module state and concurrent invocations). Each line on
 * stdout is attributed to the invocation running when it was written.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { inProcessIt } from '../support/bundles.ts';
import type { TestService } from '../support/service.ts';
import { png } from '../support/images.ts';
import { pushFiles } from '../support/library-push.ts';

// Before any service module loads (hence the dynamic imports below): the lines at INFO are the ones looked at.
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';

/** A JSON line of stdout, with the function and Lambda request id of the invocation that wrote it. */
interface Line {
  json: Record<string, unknown>;
  function: string | undefined;
  writer: string | undefined;
}

let service: TestService;
let apiKey: string;
let invocations: typeof import('../../lib/local/source-invocations.ts');
const lines: Line[] = [];
let restore: (() => void) | undefined;

beforeAll(async () => {
  const { startTestService } = await import('../support/service.ts');
  invocations = await import('../../lib/local/source-invocations.ts');
  service = await startTestService();
  apiKey = await service.apiKey('local-logs', 'library');
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    for (const line of text.split('\n'))
      if (line.startsWith('{'))
        lines.push({
          json: JSON.parse(line) as Record<string, unknown>,
          function: invocations.runningFunction(),
          writer: invocations.runningRequestId(),
        });
    return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  restore = () => {
    process.stdout.write = original;
  };
}, 60_000);
afterAll(async () => {
  restore?.();
  await service?.close();
});

inProcessIt('a request and then a renditions delivery each log with their own function name', async () => {
  const { itemGuids } = await pushFiles(service.url, apiKey, [{ bytes: png(3, 2, 7) }]);
  const refused = await service.request('GET', `/library/${'0'.repeat(32)}`, { apiKey });
  expect(refused.status).toBe(404);
  await service.drainEvents();
  const refusal = lines.find(({ json }) => json.message === 'request refused' && json.status === 404)?.json;
  expect(refusal).toMatchObject({ function_name: 'get-library-item' });
  const renditions = lines.find(({ json }) => json.message === 'renditions' && json.itemGuid === itemGuids[0])?.json;
  expect(renditions).toMatchObject({ function_name: 'make-renditions', outcome: 'Ready' });
  expect(renditions?.function_request_id).not.toBe(refusal?.function_request_id);
});

inProcessIt('invocations under way at once each log their own request ids and emit their own counts', async () => {
  const { injectFault } = await import('../support/faults.ts');
  const { dynamoDbClient } = await import('../../functions/shared/clients/dynamodb.ts');
  const { s3 } = await import('../../functions/shared/clients/s3.ts');
  const { newGuid } = await import('../../functions/shared/ids.ts');
  const { runningFunction, runningRequestId } = invocations;
  const READ = 'get-library-item';
  const PUSH = 'push-library-items';
  const misses = 4;
  const pushes = [1, 2, 3, 4].map((count, push) =>
    Array.from({ length: count }, (_, image) => ({ bytes: png(3 + push, 2 + image, 40 + 10 * push + image) })),
  );
  const total = misses + pushes.length;

  // Each invocation's first DynamoDB call is held until every one has made its own: all of them are under
  // way, their log keys set, before any logs a refusal or counts what it stored.
  const underWay = new Set<string>();
  const { promise: allUnderWay, resolve: letGo } = Promise.withResolvers<void>();
  const gate = injectFault(dynamoDbClient, {
    command: () => {
      const id = runningRequestId();
      if (![READ, PUSH].includes(runningFunction() ?? '') || id === undefined || underWay.has(id)) return false;
      underWay.add(id);
      if (underWay.size === total) letGo();
      return true;
    },
    kind: 'delayed',
    after: allUnderWay,
  });
  // What each push invocation stored, by its Lambda request id: the counts its metrics must carry.
  const stored = new Map<string, { ImagesStored: number; ImageBytesStored: number }>();
  const recorder = 'stored-by-invocation';
  s3.middlewareStack.add(
    (next, context) => (args) => {
      const id = runningRequestId();
      if (id !== undefined && runningFunction() === PUSH && context.commandName === 'PutObjectCommand') {
        const own = stored.get(id) ?? { ImagesStored: 0, ImageBytesStored: 0 };
        const bytes = Number((args.input as { ContentLength?: number }).ContentLength);
        stored.set(id, { ImagesStored: own.ImagesStored + 1, ImageBytesStored: own.ImageBytesStored + bytes });
      }
      return next(args);
    },
    { step: 'initialize', name: recorder },
  );
  const from = lines.length;
  let answers: [Awaited<ReturnType<TestService['request']>>[], unknown[]];
  try {
    // A request that ends without reaching the gate lets the others go (and the checks below fail).
    answers = await Promise.all([
      Promise.all(
        Array.from({ length: misses }, () =>
          service.request('GET', `/library/${newGuid()}`, { apiKey }).finally(letGo),
        ),
      ),
      Promise.all(pushes.map((files) => pushFiles(service.url, apiKey, files, { multi: true }).finally(letGo))),
    ]);
  } finally {
    gate.remove();
    s3.middlewareStack.remove(recorder);
  }
  expect(gate.injected).toBe(total);
  const written = lines.slice(from);

  // Every log line carries the Lambda request id of the invocation that wrote it, or none (the authorizer
  // adds no context), never another's.
  for (const { json, writer } of written.filter((line) => 'level' in line.json))
    expect([undefined, writer], JSON.stringify(json)).toContain(json.function_request_id);

  // Each refusal: one line, of its own invocation, with its own API Gateway request id as correlation id.
  const [refusals] = answers;
  const refusalLines = written.filter((line) => line.function === READ && 'level' in line.json);
  expect(refusalLines).toHaveLength(misses);
  expect(new Set(refusalLines.map((line) => line.writer)).size).toBe(misses);
  for (const refusal of refusals) {
    expect(refusal.status).toBe(404);
    const own = refusalLines.filter((line) => line.json.correlation_id === refusal.headers.get('x-amzn-requestid'));
    expect(own).toHaveLength(1);
    expect(own[0]?.json).toMatchObject({ message: 'request refused', status: 404, function_name: READ });
    expect(own[0]?.json.function_request_id).toBe(own[0]?.writer);
  }

  // Each push: one EMF line, written by its own invocation, counting exactly what that invocation stored.
  const metricLines = written.filter((line) => line.function === PUSH && '_aws' in line.json);
  expect(metricLines).toHaveLength(pushes.length);
  expect(new Set(metricLines.map((line) => line.writer)).size).toBe(pushes.length);
  for (const { json, writer } of metricLines) {
    const { _aws, service: dimension, ...values } = json as { _aws: any; service: string };
    expect(_aws.CloudWatchMetrics[0].Dimensions).toEqual([['service']]);
    expect(dimension).toBe('photo-commerce');
    expect(values).toEqual(stored.get(writer as string));
  }
  const sent = pushes.map((files) => ({
    ImagesStored: files.length,
    ImageBytesStored: files.reduce((sum, file) => sum + file.bytes.length, 0),
  }));
  expect([...stored.values()].sort((a, b) => a.ImagesStored - b.ImagesStored)).toEqual(sent);
});
