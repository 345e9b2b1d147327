/**
 * One synthesized function as Lambda runs it, locally: a child process (lib/local/bundles/function-runtime.ts)
 * started on its first invocation (a cold start) in the asset's folder, with exactly the environment the
 * caller gives it, its output appended to a log file of its own (its log group's stand-in). An invocation
 * that outlives the function's timeout ends the process, as Lambda ends the execution environment, and
 * fails with Lambda's message; a process that dies fails what it was running, and the next invocation
 * starts a new one.
 *
 * Unlike Lambda, one process takes concurrent invocations (Lambda would start more environments): the
 * handlers keep no per-request state in module scope, and the source-mode stack shares one process too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Invocation, InvocationAnswer } from './function-runtime.ts';

const RUNTIME = fileURLToPath(new URL('./function-runtime.ts', import.meta.url));

export interface FunctionProcessOptions {
  /** The function's physical name (FunctionName in the template). */
  functionName: string;
  /** The asset folder (Lambda's /var/task). */
  assetDir: string;
  timeoutSeconds: number;
  memorySize: number;
  environment: Record<string, string>;
  logFile: string;
}

/** An invocation's failure, as Lambda reports it (errorType, errorMessage). */
export class InvocationError extends Error {
  readonly errorType: string;
  constructor(errorType: string, message: string) {
    super(message);
    this.name = errorType;
    this.errorType = errorType;
  }
}

export interface FunctionProcess {
  invoke(event: unknown, awsRequestId?: string): Promise<unknown>;
  close(): Promise<void>;
}

type Pending = Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>;

/** One execution environment: the process and the invocations it is running. */
interface Environment {
  process: ChildProcess;
  pending: Pending;
}

export function functionProcess(options: FunctionProcessOptions): FunctionProcess {
  let current: Environment | undefined;
  let nextId = 0;

  const start = (): Environment => {
    const log = openSync(options.logFile, 'a');
    const started = spawn(process.execPath, [RUNTIME], {
      cwd: options.assetDir,
      env: options.environment,
      stdio: ['ignore', log, log, 'ipc'],
    });
    closeSync(log);
    const environment: Environment = { process: started, pending: new Map() };
    started.on('message', (message: InvocationAnswer) => {
      const waiting = environment.pending.get(message.id);
      if (!waiting) return;
      environment.pending.delete(message.id);
      if ('result' in message) waiting.resolve(message.result);
      else waiting.reject(new InvocationError(message.error.errorType, message.error.errorMessage));
    });
    started.on('exit', (code, signal) => {
      if (current === environment) current = undefined;
      const error = new InvocationError(
        'Runtime.ExitError',
        `RequestId: ${options.functionName} Error: Runtime exited ${signal ? `with signal ${signal}` : `with error: exit status ${code}`} (log: ${options.logFile})`,
      );
      for (const { reject } of environment.pending.values()) reject(error);
      environment.pending.clear();
    });
    return environment;
  };

  /** Ends an environment at once (a timeout): the next invocation starts a new one. */
  const end = (environment: Environment) => {
    if (current === environment) current = undefined;
    environment.process.kill('SIGKILL');
  };

  return {
    invoke(event, awsRequestId = randomUUID()) {
      const environment = (current ??= start());
      const id = nextId++;
      const deadlineMs = Date.now() + options.timeoutSeconds * 1000;
      const message: Invocation = {
        id,
        event,
        context: {
          functionName: options.functionName,
          functionVersion: '$LATEST',
          invokedFunctionArn: `arn:aws:lambda:${options.environment.AWS_REGION}:000000000000:function:${options.functionName}`,
          memoryLimitInMB: String(options.memorySize),
          awsRequestId,
          logGroupName: `/aws/lambda/${options.functionName}`,
          logStreamName: 'local',
          deadlineMs,
        },
      };
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          environment.pending.delete(id);
          reject(
            new InvocationError(
              'Sandbox.Timedout',
              `${awsRequestId} Task timed out after ${options.timeoutSeconds.toFixed(2)} seconds`,
            ),
          );
          // Lambda ends the environment of a timed-out invocation; whatever else ran there fails with it.
          end(environment);
        }, options.timeoutSeconds * 1000);
        environment.pending.set(id, {
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        environment.process.send(message);
      });
    },
    async close() {
      const running = current?.process;
      current = undefined;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.disconnect();
      const killer = setTimeout(() => running.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(killer);
    },
  };
}
