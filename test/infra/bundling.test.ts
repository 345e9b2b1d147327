/**
 * Real bundling, once, for every function of the stack: what `cdk synth` / `cdk deploy` would upload (the
 * local stack's cdk.out.local the run's global setup synthesizes, test/support/synthesized.ts, which the `bundles` project runs).
 * Each asset is an ESM bundle with the banner that defines require, __filename and __dirname, the AWS SDK
 * inside (no import left to the runtime's copy) and a source map; and bundles actually load and answer in this Node.js 24 (an endpoint,
 * and the event publisher turning a stream record's DynamoDB-JSON image into a published event).
 */
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { OUTBOX_TYPE } from '../../functions/contracts/streamed-record-types.ts';
import { outboxKey } from '../../functions/store/outbox-store.ts';
import { routes } from '../../functions/routes.ts';
import { BUNDLE_BANNER } from '../../lib/constructs/handler-function.ts';
import { ROUTELESS_FUNCTIONS } from '../../lib/constructs/routeless-functions.ts';
import { localSynthesisContext } from '../../lib/local/service.ts';
import { synthesizedFunctions } from '../../lib/local/bundles/synthesized-stack.ts';

/** Scratch space of the event publisher test. */
const outdir = mkdtempSync(join(tmpdir(), 'bundle-test-'));
/** Handler module name -> its staged asset directory (route functions are in the nested route-group templates). */
const assets = new Map(
  synthesizedFunctions(
    {
      tableName: 'table',
      bucketName: 'bucket',
      eventBusName: 'bus',
      webhookDeliveryQueueUrl: 'queue',
      webhookKeyId: 'key',
      artworkLinkKeyId: 'link-key',
    },
    localSynthesisContext(process.env).stage,
  ).map((fn) => [fn.module, fn.assetDir]),
);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('function bundles', () => {
  it('builds one bundle per route and one per routeless function (authorizer, library sweeper, event publisher, renditions)', () => {
    expect([...assets.keys()].sort()).toEqual(
      [...routes.map((route) => route.handler), ...Object.values(ROUTELESS_FUNCTIONS).map((fn) => fn.handler)].sort(),
    );
    expect(assets.has('publish-events')).toBe(true);
    expect(assets.has('make-renditions')).toBe(true);
  });

  it('are minified ESM with the CommonJS-names banner (require, __filename, __dirname), the AWS SDK inside and a linked source map', () => {
    for (const [handler, dir] of assets) {
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(code.startsWith(BUNDLE_BANNER), handler).toBe(true);
      // Only Node.js built-ins may stay external.
      const imports = [...code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w$*{},\s]+from\s*)?["']([^"']+)["']/g)].map(
        (m) => m[1]!,
      );
      expect(imports.length, handler).toBeGreaterThan(0);
      const external = imports.filter(
        (specifier) => !specifier.startsWith('node:') && !builtinModules.includes(specifier),
      );
      // sharp is native: the renditions asset carries it beside the bundle (checked below).
      expect(external, handler).toEqual(handler === 'make-renditions' ? ['sharp'] : []);
      expect(code).toContain('//# sourceMappingURL=index.mjs.map');
      expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
      // Minified: a few long lines, not one statement per line.
      expect(code.split('\n').length, handler).toBeLessThan(200);
      expect(statSync(join(dir, 'index.mjs')).size, handler).toBeLessThan(5 * 1024 * 1024);
    }
  });

  it('hold code from production dependencies only (what `npm audit --omit=dev` covers)', () => {
    // `npm ls --omit=dev` walks the lock file's production tree; its package folders are all a bundle may draw from.
    const production = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .split('\n')
      .filter((path) => path.includes(`${sep}node_modules${sep}`));
    expect(production.length).toBeGreaterThan(20);
    for (const [handler, dir] of assets) {
      const { sources } = JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as { sources: string[] };
      const packaged = sources
        .map((source) => resolve(dir, source))
        .filter((path) => path.includes(`${sep}node_modules${sep}`));
      expect(packaged.length, handler).toBeGreaterThan(0);
      const devOnly = packaged.filter((path) => !production.some((folder) => path.startsWith(folder + sep)));
      expect(devOnly, handler).toEqual([]);
    }
  });

  it("the renditions asset holds sharp with its linux-arm64 binaries (the function's platform), none for x64, no symlinks", () => {
    const dir = assets.get('make-renditions')!;
    const files = readdirSync(dir, { recursive: true, withFileTypes: true });
    expect(files.filter((entry) => entry.isSymbolicLink()).map((entry) => entry.name)).toEqual([]);
    const paths = files.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
    const native = paths.filter((path) => /\.node$|\.so(\.\d+)*$/.test(path));
    expect(native.length).toBeGreaterThanOrEqual(2);
    expect(native.some((path) => path.includes(join('@img', 'sharp-linux-arm64', 'lib', 'sharp-linux-arm64')))).toBe(
      true,
    );
    expect(
      native.some((path) => path.includes(join('@img', 'sharp-libvips-linux-arm64', 'lib', 'libvips-cpp.so'))),
    ).toBe(true);
    expect(paths.filter((path) => /x64|x86_64|darwin|win32|musl/.test(path.slice(dir.length)))).toEqual([]);
    // Every native file is an ELF object for AArch64 (e_machine 183 at byte 18, little-endian).
    for (const path of native) {
      const header = readFileSync(path).subarray(0, 20);
      expect([header.subarray(0, 4).toString('latin1'), header.readUInt16LE(18)], path).toEqual(['\x7fELF', 183]);
    }
    // The version the project is locked to, whose JavaScript the bundle was tested with.
    const { version } = JSON.parse(readFileSync(join(dir, 'node_modules', 'sharp', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(version).toBe(JSON.parse(readFileSync('node_modules/sharp/package.json', 'utf8')).version);
  });

  it('load and answer in Node.js 24 (the health bundle, invoked with an API Gateway event)', async () => {
    const dir = assets.get('get-health');
    expect(dir).toBeDefined();
    const { handler } = (await import(pathToFileURL(join(dir!, 'index.mjs')).href)) as {
      handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
    };
    const event = {
      resource: '/health',
      path: '/health',
      httpMethod: 'GET',
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      requestContext: { requestId: 'bundle-test', authorizer: null },
      body: null,
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEvent;
    const context = {
      functionName: 'get-health',
      awsRequestId: 'bundle-test',
      getRemainingTimeInMillis: () => 10_000,
    } as unknown as Context;
    const result = await handler(event, context);
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ Status: 'ok' });
    expect(result.headers?.['Content-Type']).toBe('application/json; charset=utf-8');
  });

  it('load and publish in Node.js 24 (the event publisher bundle, given a stream batch with an outbox record)', async () => {
    const dir = assets.get('publish-events');
    expect(dir).toBeDefined();
    const { handler } = (await import(pathToFileURL(join(dir!, 'index.mjs')).href)) as {
      handler: (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;
    };
    const event = { type: 'OrderCreated', id: 'OrderCreated-bundle', time: 1_764_000_000_000, detail: { UserId: 'u' } };
    const record = (sequence: string, item: Record<string, unknown>) =>
      ({
        eventName: 'INSERT',
        dynamodb: { SequenceNumber: sequence, NewImage: marshall(item) as Record<string, AttributeValue> },
      }) as DynamoDBRecord;
    const eventsFile = join(outdir, 'events.jsonl');
    const saved = { bus: process.env.EVENT_BUS_NAME, file: process.env.EVENTS_FILE };
    delete process.env.EVENT_BUS_NAME;
    process.env.EVENTS_FILE = eventsFile;
    try {
      const result = await handler(
        {
          Records: [
            record('1', { ...outboxKey(event.id), Type: OUTBOX_TYPE, event }),
            record('2', { PK: 'USER#u', SK: 'BASKET#b', Type: 'Basket' }),
          ],
        },
        {
          functionName: 'publish-events',
          awsRequestId: 'bundle-test',
          getRemainingTimeInMillis: () => 10_000,
        } as Context,
      );
      expect(result).toEqual({ batchItemFailures: [] });
      const published = readFileSync(eventsFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(published).toEqual([
        expect.objectContaining({
          id: event.id,
          'detail-type': 'OrderCreated',
          detail: { EventId: event.id, UserId: 'u' },
        }),
      ]);
    } finally {
      if (saved.bus !== undefined) process.env.EVENT_BUS_NAME = saved.bus;
      if (saved.file === undefined) delete process.env.EVENTS_FILE;
      else process.env.EVENTS_FILE = saved.file;
    }
  });
});
