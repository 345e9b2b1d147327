/**
 * Which function is running, when the handlers run from source in one process: each invocation runs inside
 * an async context naming its function, and the service's shared SDK clients sign with that function's own
 * local credentials (lib/local/function-credentials.ts), as each Lambda function signs with its role's. So the
 * local stand-ins tell the functions apart by access key in source mode too (the IAM check records calls by
 * it); calls made outside any invocation (tests, CLIs reading the store) keep the tools' key.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { functionCredentials } from './function-credentials.ts';

const running = new AsyncLocalStorage<string>();

/** Runs `work` as an invocation of the function whose handler module is `functionName`. */
export const asInvocationOf = <T>(functionName: string, work: () => T): T => running.run(functionName, work);

/** The function whose invocation is running here, if any. */
export const runningFunction = (): string | undefined => running.getStore();

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
      if (name !== undefined && scheme) scheme.identity = functionCredentials(name);
      return next(args);
    },
    { step: 'build', name: 'localFunctionCredentials' },
  );
}
