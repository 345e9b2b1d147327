/**
 * The bundles figure 3 starts cold: the CDK stack's esbuild options, which AWS SDK clients a handler's bundle
 * holds, and the baseline that creates the same clients and sends the same calls, untraced or traced.
 */
import type { BuildOptions, Metafile } from 'esbuild';
import { bundling } from '../../../lib/constructs/handler-function.ts';
import { waves, type DynamoCall } from './dynamo-probe.ts';
import type { S3Call } from './s3-calls-probe.ts';

/** The CDK stack's bundling options (lib/constructs/handler-function.ts), as esbuild takes them. */
export const esbuildOptions: BuildOptions = {
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
export const sdkPackagesIn = (metafile: Metafile): string[] => {
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
 * `traced`: its DynamoDB and S3 clients put their calls in the trace as the service's do (functions/shared/tracing.ts).
 */
export function baselineSource(
  packages: string[],
  calls: DynamoCall[],
  s3Calls: S3Call[],
  { traced = false } = {},
): string {
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
    ...(traced
      ? [
          "import { traced } from './functions/shared/tracing.ts';",
          ...(needed.includes('@aws-sdk/client-dynamodb') ? ['traced(dynamoDbClient);'] : []),
          ...(needed.includes('@aws-sdk/client-s3') ? ['traced(s3Client);'] : []),
        ]
      : []),
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
