/**
 * Which function is running, when the handlers run from source in one process: each invocation runs inside
 * an async context naming its function, and the service's shared SDK clients sign with that function's own
 * local credentials (lib/local/function-credentials.ts), as each Lambda function signs with its role's. So the
 * local stand-ins tell the functions apart by access key in source mode too (the IAM check records calls by
 * it); calls made outside any invocation (tests, CLIs reading the store) keep the tools' key.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { InvokeStoreBase } from '@aws/lambda-invoke-store';
import { functionCredentials } from './function-credentials.ts';

type InvocationContext = Record<string | symbol, unknown>;
const FUNCTION_NAME = Symbol('local function name');

/**
 * Lambda's store of the running invocation, as its runtime keeps one where an environment runs invocations
 * concurrently (`AWS_LAMBDA_MAX_CONCURRENCY`): Powertools then keeps each invocation's state (the logger's
 * Lambda context and keys) apart. One process runs every function here; without it a line would carry the
 * context of the last invocation, whichever function that was. Ours, not the library's shared instance:
 * the SDK may have created that one before, for a single invocation at a time.
 */
class Invocations extends InvokeStoreBase {
  readonly #running = new AsyncLocalStorage<InvocationContext>();
  getContext = () => this.#running.getStore();
  hasContext = () => this.#running.getStore() !== undefined;
  get = <T>(key: string | symbol) => this.#running.getStore()?.[key] as T | undefined;
  set<T>(key: string | symbol, value: T): void {
    const context = this.#running.getStore();
    if (!context || this.isProtectedKey(key)) throw new Error(`no invocation's ${String(key)} to set here`);
    context[key] = value;
  }
  run = <T>(context: InvocationContext, work: () => T): T => this.#running.run(context, work);
}

const invocations = new Invocations();

/** Puts the invocations' store where Powertools looks for Lambda's (before the first invocation). */
export function scopeInvocations(): void {
  const lambda = ((globalThis as { awslambda?: { InvokeStore?: unknown } }).awslambda ??= {});
  lambda.InvokeStore = invocations;
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '1000';
}

/**
 * Runs `work` as the invocation `requestId` of the function whose handler module is `functionName`, in the
 * X-Ray trace `traceHeader` names, if any (as Lambda's runtime keeps each invocation's).
 */
export const asInvocationOf = <T>(functionName: string, requestId: string, work: () => T, traceHeader?: string): T =>
  invocations.run(
    {
      [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: requestId,
      [FUNCTION_NAME]: functionName,
      ...(traceHeader ? { [InvokeStoreBase.PROTECTED_KEYS.X_RAY_TRACE_ID]: traceHeader } : {}),
    },
    work,
  );

/**
 * The trace an event's invocation runs in: the request's `X-Amzn-Trace-Id`. With tracing on, API Gateway
 * passes its own there and Lambda starts the function's segment under it; locally there is no segment of
 * either, so the request's header itself names the trace and the parent of the function's AWS calls.
 */
export const traceHeaderOf = (event: { headers?: Record<string, string | undefined> | null }): string | undefined =>
  Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'x-amzn-trace-id')?.[1];

/** The function whose invocation is running here, if any. */
export const runningFunction = (): string | undefined => invocations.get<string>(FUNCTION_NAME);

/** The Lambda request id (`awsRequestId`) of the invocation running here, if any. */
export const runningRequestId = (): string | undefined =>
  invocations.get<string>(InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID);

interface SignedClient {
  config: { credentials: () => Promise<AwsCredentialIdentity> };
  middlewareStack: {
    add(
      middleware: (
        next: (args: unknown) => Promise<unknown>,
        context: Record<string, unknown>,
      ) => (args: unknown) => Promise<unknown>,
      options: { step: 'build'; name: string },
    ): void;
  };
}

const attributed = new WeakSet<object>();

interface SigningConfig {
  signer?: (authScheme?: unknown) => Promise<object>;
}

/**
 * Makes this call's SigV4 signer sign with `credentials`. The SDK's signer does not sign with the identity
 * the call resolved: it asks the client's memoized credentials provider, which hands one pending answer to
 * calls made at the same moment, so two functions calling at once (a queue's event reaching two consumers
 * in one tick) could both sign as one of them. The call's signing config falls through to the client's,
 * with a signer that is the client's but for its credentials.
 */
function signWith(scheme: object, credentials: AwsCredentialIdentity): void {
  const properties = (scheme as { httpAuthOption?: { signingProperties?: { config?: SigningConfig } } }).httpAuthOption
    ?.signingProperties;
  const config = properties?.config;
  const signer = config?.signer;
  if (!properties || !config || !signer) return;
  properties.config = Object.create(config, {
    signer: {
      value: async (authScheme?: unknown) =>
        Object.create(await signer.call(config, authScheme), {
          credentialProvider: { value: async () => credentials },
        }),
    },
  }) as SigningConfig;
}

/**
 * Makes `client` sign as the running function: its requests (the identity the SDK resolved is replaced
 * before signing; the SDK keeps it in the call's smithy context) and its presigned URLs and POSTs (which
 * read `config.credentials` when they sign).
 */
export function signAsRunningFunction(client: SignedClient): void {
  if (attributed.has(client)) return;
  attributed.add(client);
  const own = client.config.credentials;
  // The SDK memoizes what it is given here until the identity expires: expired at once, it is asked each time.
  client.config.credentials = async () => {
    const name = runningFunction();
    return { ...(name === undefined ? await own() : functionCredentials(name)), expiration: new Date(0) };
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = runningFunction();
      const scheme = (context.__smithy_context as { selectedHttpAuthScheme?: { identity: unknown } } | undefined)
        ?.selectedHttpAuthScheme;
      if (name !== undefined && scheme) {
        const credentials = functionCredentials(name);
        scheme.identity = credentials;
        signWith(scheme, credentials);
      }
      return next(args);
    },
    { step: 'build', name: 'localFunctionCredentials' },
  );
}
