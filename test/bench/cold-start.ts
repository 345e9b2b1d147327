/**
 * Figure 3: cold start. Each handler is bundled with the CDK stack's own esbuild options, and so is a
 * baseline that only creates the same AWS SDK clients and makes the same DynamoDB and S3 calls. Fresh Node
 * processes load one bundle and answer one request; their sizes and times are compared.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { bundling } from '../../lib/constructs/handler-function.ts';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/metric-names.ts';
import type { Check, Figure } from './support/report.ts';
import { kib, median, ms, pairedRatio, ratio, sideBySide, type Cost } from './support/stats.ts';
import { startWorld } from './support/world.ts';
import { buildScenarios, type Scenario } from './support/scenarios.ts';
import { waves, type DynamoCall, type Journal } from './support/dynamo-probe.ts';
import { progress } from './support/progress.ts';
import { S3CallsProbe, type S3Call } from './support/s3-calls-probe.ts';

const ROUNDS = 11;
const BUDGET = 1.3;
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const execFileAsync = promisify(execFile);

/** The CDK stack's bundling options (lib/constructs/handler-function.ts), as esbuild takes them. */
const esbuildOptions: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: bundling.target,
  minify: bundling.minify,
  sourcemap: bundling.sourceMap,
  sourcesContent: bundling.sourcesContent,
  mainFields: bundling.mainFields,
  banner: { js: bundling.banner as string },
  metafile: true,
  logLevel: 'warning',
};

/** SDK clients a bundle may hold, by package, and how the baseline creates each. */
const SDK_CLIENTS: Record<string, { name: string; create: string }> = {
  '@aws-sdk/client-dynamodb': {
    name: 'DynamoDBClient',
    create:
      'const dynamoDbClient = new DynamoDBClient(process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {});',
  },
  '@aws-sdk/lib-dynamodb': { name: 'DynamoDBDocumentClient', create: 'DynamoDBDocumentClient.from(dynamoDbClient);' },
  '@aws-sdk/client-s3': {
    name: 'S3Client',
    // As functions/shared/clients/s3.ts configures it.
    create:
      "const s3Client = new S3Client({ requestChecksumCalculation: 'WHEN_REQUIRED', expectContinueHeader: false, ...(process.env.S3_ENDPOINT ? { endpoint: process.env.S3_ENDPOINT, forcePathStyle: true } : {}) });",
  },
  '@aws-sdk/client-eventbridge': { name: 'EventBridgeClient', create: 'new EventBridgeClient({});' },
};

/** Packages with code in the bundle: a module esbuild read but tree-shook away (bytesInOutput 0) does not count. */
const sdkPackagesIn = (metafile: Metafile): string[] => {
  const bundled = Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
  return Object.keys(SDK_CLIENTS).filter((name) => bundled.some((input) => input.includes(`node_modules/${name}/`)));
};

/**
 * A handler that creates the clients the real bundle holds and sends the recorded calls: DynamoDB's wave by
 * wave, then S3's side by side (the handlers that call S3 in a request do so once their records are written).
 */
function baselineSource(packages: string[], calls: DynamoCall[], s3Calls: S3Call[]): string {
  const operations = [...new Set(calls.map((call) => call.operation))];
  const s3Operations = [...new Set(s3Calls.map((call) => call.operation))];
  const needed =
    packages.includes('@aws-sdk/lib-dynamodb') || calls.length > 0
      ? [...new Set(['@aws-sdk/client-dynamodb', ...packages])]
      : packages;
  const imports = needed.map((name) => {
    const names = [
      (SDK_CLIENTS[name] as { name: string }).name,
      ...(name === '@aws-sdk/client-dynamodb' ? operations.map((operation) => `${operation}Command`) : []),
      ...(name === '@aws-sdk/client-s3' ? s3Operations.map((operation) => `${operation}Command`) : []),
    ];
    return `import { ${names.join(', ')} } from '${name}';`;
  });
  const plan = waves(calls).map((wave) =>
    wave.map((call) => ({ operation: call.operation, input: call.input, failed: call.failed })),
  );
  return [
    ...imports,
    ...needed.map((name) => (SDK_CLIENTS[name] as { create: string }).create),
    `const commands = { ${operations.map((operation) => `${operation}: ${operation}Command`).join(', ')} };`,
    `const plan = ${JSON.stringify(plan)};`,
    `const s3Commands = { ${s3Operations.map((operation) => `${operation}: ${operation}Command`).join(', ')} };`,
    `const s3Plan = ${JSON.stringify(s3Calls)};`,
    'export const handler = async () => {',
    '  for (const wave of plan) await Promise.all(wave.map((call) => dynamoDbClient.send(new commands[call.operation](call.input)).catch((error) => { if (!call.failed) throw error; })));',
    '  await Promise.all(s3Plan.map((call) => s3Client.send(new s3Commands[call.operation](call.input))));',
    "  return { statusCode: 200, body: '{}' };",
    '};',
  ].join('\n');
}

/** Loads a bundle in this fresh process, answers one event, writes its costs (from just before the import). */
const LOADER = `
import { readFileSync, writeFileSync } from 'node:fs';
const [bundle, eventFile, out] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const deadline = Date.now() + 29000;
const context = { functionName: 'cold', functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:cold', memoryLimitInMB: '1024',
  awsRequestId: 'cold-start', logGroupName: '/aws/lambda/cold', logStreamName: 'local', callbackWaitsForEmptyEventLoop: false,
  getRemainingTimeInMillis: () => deadline - Date.now(), done() {}, fail() {}, succeed() {} };
const cpu = process.cpuUsage();
const start = performance.now();
const { handler } = await import(bundle);
const result = await handler(event, context);
const wall = performance.now() - start;
const used = process.cpuUsage(cpu);
writeFileSync(out, JSON.stringify({ wall, cpu: (used.user + used.system) / 1000, status: result.statusCode }));
process.exit(0);
`;

interface Bundles {
  scenario: Scenario;
  handler: string;
  baseline: string;
  handlerBytes: number;
  baselineBytes: number;
  /** The AWS SDK client packages with code in the handler's bundle. */
  packages: string[];
  calls: DynamoCall[];
  journal: Journal;
}

export async function run(): Promise<Figure[]> {
  const world = await startWorld({
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
  });
  const workDir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
  try {
    const scenarios = await buildScenarios(world);
    const perHandler = [...new Map(scenarios.map((scenario) => [scenario.handler, scenario])).values()];
    writeFileSync(join(workDir, 'loader.mjs'), LOADER);

    const bundles: Bundles[] = [];
    const { s3 } = await import('../../functions/shared/clients/s3.ts');
    const s3Probe = new S3CallsProbe(s3);
    for (const scenario of perHandler) {
      // The calls a first request makes, recorded in-process from the starting state, which is then put back
      // (the table's; an object it deleted stays deleted, and deleting it again costs S3 the same).
      world.probe.watch({ journal: true });
      s3Probe.watch();
      await world.invoke(scenario.handler, scenario.event);
      const s3Calls = s3Probe.take();
      const { calls, journal } = world.probe.take();
      await world.probe.restore(journal, calls);

      const dir = join(workDir, scenario.handler);
      const built = await build({
        ...esbuildOptions,
        entryPoints: [join(projectRoot, `functions/handlers/${scenario.handler}.ts`)],
        outfile: join(dir, 'handler.mjs'),
      });
      const packages = sdkPackagesIn(built.metafile as Metafile);
      await build({
        ...esbuildOptions,
        stdin: {
          contents: baselineSource(packages, calls, s3Calls),
          resolveDir: projectRoot,
          sourcefile: 'baseline.mjs',
          loader: 'js',
        },
        outfile: join(dir, 'baseline.mjs'),
      });
      writeFileSync(join(dir, 'event.json'), JSON.stringify(scenario.event satisfies APIGatewayProxyEvent));
      bundles.push({
        scenario,
        packages,
        calls,
        journal,
        handler: join(dir, 'handler.mjs'),
        baseline: join(dir, 'baseline.mjs'),
        handlerBytes: statSync(join(dir, 'handler.mjs')).size,
        baselineBytes: statSync(join(dir, 'baseline.mjs')).size,
      });
    }
    progress(`  built ${bundles.length * 2} bundles`);

    const rows: string[][] = [];
    const checks: Check[] = [];
    // A fresh function's environment: without the concurrency the local stack declares for its in-process
    // invocations (lib/local/source-invocations.ts), which Lambda sets only with a runtime that runs each
    // invocation in its store.
    const { AWS_LAMBDA_MAX_CONCURRENCY: _inProcessOnly, ...freshEnv } = process.env;
    for (const bundle of bundles) {
      const dir = join(workDir, bundle.scenario.handler);
      const coldRun = async (file: string): Promise<Cost> => {
        const out = join(dir, 'result.json');
        await execFileAsync(process.execPath, [join(workDir, 'loader.mjs'), file, join(dir, 'event.json'), out], {
          env: freshEnv,
          maxBuffer: 64 * 1024 * 1024,
        }).catch((error: { stderr?: string }) => {
          const lastLines = (error.stderr ?? '')
            .split('\n')
            .filter((line) => line.length < 400)
            .slice(-12)
            .join('\n');
          throw new Error(`${bundle.scenario.handler}: a fresh process running ${file} failed:\n${lastLines}`);
        });
        const result = JSON.parse(readFileSync(out, 'utf8')) as Cost & { status: number };
        if (result.status >= 300) throw new Error(`${bundle.scenario.label}: cold ${file} answered ${result.status}`);
        await world.probe.restore(bundle.journal, bundle.calls);
        return result;
      };
      const samples = await sideBySide(
        ROUNDS,
        () => coldRun(bundle.handler),
        () => coldRun(bundle.baseline),
      );
      const handlerCpu = median(samples.candidate.map((s) => s.cpu));
      const baselineCpu = median(samples.baseline.map((s) => s.cpu));
      const handlerWall = median(samples.candidate.map((s) => s.wall));
      const baselineWall = median(samples.baseline.map((s) => s.wall));
      const sizeRatio = bundle.handlerBytes / bundle.baselineBytes;
      const startRatio = pairedRatio({
        candidate: samples.candidate.map((s) => s.cpu),
        baseline: samples.baseline.map((s) => s.cpu),
      });
      if (bundle.packages.length === 0) {
        rows.push([
          bundle.scenario.handler,
          kib(bundle.handlerBytes),
          '— (no SDK client)',
          '—',
          ms(handlerCpu, 0),
          ms(baselineCpu, 0),
          '—',
          `${ms(handlerWall, 0)} / ${ms(baselineWall, 0)}`,
        ]);
        progress(
          `  cold ${bundle.scenario.handler}: no SDK client, ${kib(bundle.handlerBytes)}, start ${ms(handlerCpu, 0)} CPU`,
        );
        continue;
      }
      rows.push([
        bundle.scenario.handler,
        kib(bundle.handlerBytes),
        kib(bundle.baselineBytes),
        ratio(sizeRatio),
        ms(handlerCpu, 0),
        ms(baselineCpu, 0),
        ratio(startRatio),
        `${ms(handlerWall, 0)} / ${ms(baselineWall, 0)}`,
      ]);
      checks.push({
        name: `${bundle.scenario.handler}: bundle size / baseline`,
        measured: sizeRatio,
        limit: BUDGET,
        kind: 'max',
        shown: ratio(sizeRatio),
      });
      checks.push({
        name: `${bundle.scenario.handler}: cold start / baseline (CPU time)`,
        measured: startRatio,
        limit: BUDGET,
        kind: 'max',
        shown: ratio(startRatio),
      });
      progress(
        `  cold ${bundle.scenario.handler}: size ${ratio(sizeRatio)}, start ${ratio(startRatio)} (wall ${ratio(handlerWall / baselineWall)})`,
      );
    }
    return [
      {
        title: '3. Cold start',
        howToRead:
          'Each handler is bundled with the esbuild options of the CDK stack (`bundling` in lib/constructs/handler-function.ts: ESM, minified, external source map, node24, AWS SDK bundled in, createRequire banner). ' +
          'The baseline is bundled the same way from a module that only creates the AWS SDK clients the handler bundle holds (detected from its esbuild metafile) ' +
          'and, as its answer to the first request, sends the same DynamoDB and S3 calls the handler sends (S3 calls are requests sent, not URLs presigned). ' +
          'A client counts when its package has code in the bundle (esbuild metafile, bytes in the output), not when a module was read and tree-shaken away. ' +
          'A handler whose bundle holds no SDK client at all (health, OpenAPI document) has no SDK cost to compare with: its baseline would be an empty module, ' +
          'so, as figure 2 does for endpoints without storage calls, its own size and start are shown without a ratio or budget. ' +
          `Sizes are of the .mjs file (the source map is separate and not loaded). Start is measured inside a fresh Node process, from just before \`import()\` of the bundle to the handler's answer to one request; ` +
          `${ROUNDS} fresh processes each, alternating; the start columns are medians, and the start ratio is the median of the ${ROUNDS} per-round ratios (each round runs the two back to back, so a change in the machine's load between rounds cancels out). ` +
          `As in figure 2 the budget is checked on CPU time, with wall clock (handler / baseline) shown beside it. Budgets: both ratios ≤ ${BUDGET}.`,
        columns: [
          'Handler',
          'Bundle',
          'Baseline bundle',
          'Size ratio',
          'Start CPU',
          'Baseline start CPU',
          'Start ratio',
          'Start wall (handler / baseline)',
        ],
        rows,
        checks,
      },
    ];
  } finally {
    rmSync(workDir, { recursive: true, force: true });
    await world.close();
  }
}
