/**
 * The Lambda runtime's stand-in, run as a child process per function (lib/local/bundles/function-process.ts):
 * it imports the function's asset (its copy, lambda-task.ts) as Lambda's Node.js runtime does (`_HANDLER` is
 * `<file>.<export>`, relative to the asset, the working directory), then takes invocations over IPC and
 * answers each with the handler's result or its error. Its environment is the function's own; it imports
 * nothing of the repository, so the asset is all the code that runs.
 */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { existsSync } from 'node:fs';

/** What the parent sends per invocation: the event, and the context fields Lambda would give. */
export interface Invocation {
  id: number;
  event: unknown;
  context: {
    functionName: string;
    functionVersion: string;
    invokedFunctionArn: string;
    memoryLimitInMB: string;
    awsRequestId: string;
    logGroupName: string;
    logStreamName: string;
    deadlineMs: number;
  };
}

export type InvocationAnswer =
  /** Sent once, when the init phase is over (the handler's module loaded, or failed to). */
  | { ready: true }
  | { id: number; result: unknown }
  | { id: number; error: { errorType: string; errorMessage: string; stack?: string } };

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

async function loadHandler(): Promise<Handler> {
  const spec = process.env._HANDLER ?? '';
  const dot = spec.lastIndexOf('.');
  const base = join(process.cwd(), spec.slice(0, dot));
  // The Node.js runtime looks for the module as .js, .mjs or .cjs.
  const file = ['.mjs', '.js', '.cjs'].map((extension) => base + extension).find((path) => existsSync(path));
  if (dot <= 0 || !file)
    throw new Error(`Runtime.ImportModuleError: no module for handler ${spec} in ${process.cwd()}`);
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const handler = module[spec.slice(dot + 1)];
  if (typeof handler !== 'function') throw new Error(`Runtime.HandlerNotFound: ${spec} is not a function`);
  return handler as Handler;
}

const answer = (message: InvocationAnswer) => process.send?.(message);

const errorOf = (error: unknown) =>
  error instanceof Error
    ? { errorType: error.name, errorMessage: error.message, ...(error.stack ? { stack: error.stack } : {}) }
    : { errorType: 'Error', errorMessage: String(error) };

// Loaded at once, as Lambda's init phase does: a bundle that cannot load fails its first invocation.
const handler = loadHandler();
void handler.then(
  () => answer({ ready: true }),
  () => answer({ ready: true }),
);

process.on('message', (message: Invocation) => {
  const { deadlineMs, ...fields } = message.context;
  const context = {
    ...fields,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadlineMs - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
  handler
    .then((run) => run(message.event, context))
    .then(
      // undefined is no JSON value: Lambda answers null.
      (result) => answer({ id: message.id, result: result ?? null }),
      (error: unknown) => answer({ id: message.id, error: errorOf(error) }),
    );
});
// The parent closing the channel is the environment's end.
process.on('disconnect', () => process.exit(0));
