/**
 * The service's functions run from their synthesized assets (`LOCAL_BUNDLES=1`): each function of the
 * template in a process of its own (function-process.ts), with exactly the environment its template gives
 * it, plus what Lambda itself sets, the local endpoints and the function's own local credentials, and the
 * caller's explicit overrides. Nothing else of the local process's environment reaches them, so a setting
 * the template forgets fails here as it would in AWS.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { functionCredentials } from '../function-credentials.ts';
import { recordEmfLog } from '../metric-log.ts';
import { functionProcess, InvocationError, type FunctionProcess } from './function-process.ts';
import { lambdaTaskRoot } from './lambda-task.ts';
import {
  LOCAL_CDK_OUT,
  staleness,
  synthesize,
  synthesizedFunctions,
  type LocalResources,
  type SynthesizedFunction,
} from './synthesized-stack.ts';

export { InvocationError };

/** What stands in for AWS around the functions: where storage is, the issuer's keys, the region. */
export interface LocalEndpoints {
  region: string;
  dynamoEndpoint: string;
  s3Endpoint: string;
  eventBridgeEndpoint: string;
  /** The local KMS stand-in and SQS front (webhooks). */
  kmsEndpoint: string;
  sqsEndpoint: string;
  /** The local issuer's key set, in place of the template's JWT_JWKS_URL (an https endpoint of the real issuer). */
  jwksFile: string;
}

export interface BundledFunctionsOptions {
  /** The CDK context of the local stack's synthesis (checkout site, token issuer, CORS: what `npm start` uses). */
  context: Record<string, string> & { stage: string };
  resources: LocalResources;
  endpoints: LocalEndpoints;
  /** Where each function's log file goes (its log group's stand-in). */
  logDir: string;
  /** Variables the caller sets on every function on top of the template's (tests' switches, e.g. PULL_ALLOW_LOOPBACK). */
  overrides?: Record<string, string>;
  outdir?: string;
  /** Told why the assembly is synthesized first, when it is. */
  onSynthesize?: (reason: string) => void;
}

export interface BundledFunctions {
  /** The cloud assembly whose assets run (each from its copy, lambda-task.ts). */
  outdir: string;
  functions: SynthesizedFunction[];
  /** Invokes the function bundled from handler module `module` with `event`, as Lambda does. */
  invoke(module: string, event: unknown, awsRequestId?: string): Promise<unknown>;
  close(): Promise<void>;
}

/** What Lambda sets in every function's environment (the subset a Node.js function can observe and use). */
function lambdaEnvironment(fn: SynthesizedFunction, region: string): Record<string, string> {
  const credentials = functionCredentials(fn.module);
  return {
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'local',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    LAMBDA_TASK_ROOT: fn.assetDir,
    _HANDLER: fn.handler,
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    PATH: '/usr/local/bin:/usr/bin/:/bin',
  };
}

/**
 * The environment of `fn` run locally: its template's variables, what Lambda sets, the local endpoints (the
 * local issuer's key file in place of the template's JWKS URL) and `overrides`.
 */
export function functionEnvironment(
  fn: SynthesizedFunction,
  endpoints: LocalEndpoints,
  overrides: Record<string, string> = {},
): Record<string, string> {
  const { JWT_JWKS_URL, ...template } = fn.environment;
  return {
    ...template,
    ...lambdaEnvironment(fn, endpoints.region),
    DYNAMODB_ENDPOINT: endpoints.dynamoEndpoint,
    S3_ENDPOINT: endpoints.s3Endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: endpoints.eventBridgeEndpoint,
    AWS_ENDPOINT_URL_KMS: endpoints.kmsEndpoint,
    AWS_ENDPOINT_URL_SQS: endpoints.sqsEndpoint,
    // Any other SDK client goes to a closed loopback port, never to AWS.
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    ...(JWT_JWKS_URL !== undefined ? { JWT_JWKS_FILE: endpoints.jwksFile } : {}),
    ...overrides,
  };
}

export function startBundledFunctions(options: BundledFunctionsOptions): BundledFunctions {
  const outdir = options.outdir ?? LOCAL_CDK_OUT;
  const stale = staleness(options.context, outdir);
  if (stale) {
    options.onSynthesize?.(stale);
    synthesize(options.context, outdir);
  }
  // Each runs from its asset's copy outside the repository, as from Lambda's /var/task (lambda-task.ts).
  const functions = synthesizedFunctions(options.resources, options.context.stage, outdir).map((fn) => ({
    ...fn,
    assetDir: lambdaTaskRoot(fn.assetDir),
  }));
  mkdirSync(options.logDir, { recursive: true });
  const logFileOf = (fn: SynthesizedFunction) => join(options.logDir, `${fn.module}.log`);
  const processes = new Map<string, FunctionProcess>(
    functions.map((fn) => {
      const environment = functionEnvironment(fn, options.endpoints, options.overrides);
      return [
        fn.module,
        functionProcess({
          functionName: fn.functionName,
          assetDir: fn.assetDir,
          timeoutSeconds: fn.timeoutSeconds,
          memorySize: fn.memorySize,
          environment,
          logFile: logFileOf(fn),
        }),
      ];
    }),
  );
  return {
    outdir,
    functions,
    invoke(module, event, awsRequestId) {
      const process = processes.get(module);
      if (!process) throw new Error(`no function bundled from functions/handlers/${module}.ts in ${outdir}`);
      return process.invoke(event, awsRequestId);
    },
    async close() {
      await Promise.all([...processes.values()].map((process) => process.close()));
      // The metrics CloudWatch Logs would take from their log groups, for the test run's metric log.
      for (const fn of functions) recordEmfLog(logFileOf(fn), fn.module);
    },
  };
}
