/**
 * One synthesized function as Lambda runs it, locally. Each execution environment is a child process
 * (lib/local/bundles/function-runtime.ts) in the asset's folder, with exactly the environment the caller
 * gives it, its output appended to a log file of its own (its log group's stand-in), and, as in Lambda, one
 * invocation at a time. A new environment starts (a cold start) when every one is busy, up to
 * `maxEnvironments`; beyond that an invocation waits for the first one free (where Lambda would start yet
 * another: the machine running this has two cores, not a fleet), and its timeout runs from when it starts.
 * An invocation that outlives the function's timeout ends its environment, as Lambda does, and fails with
 * Lambda's message; an environment that dies fails its invocation, and later ones start new environments.
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
  /** Environments at once (default 4). */
  maxEnvironments?: number;
  /** What runs the runtime stand-in: default this process's Node; e.g. the arm64 Node under qemu (test/support/arm64.ts). */
  runner?: { command: string; args: string[] };
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

/** One execution environment: its process, whether its init phase is over, and the invocation it is running. */
interface Environment {
  process: ChildProcess;
  initialized: Promise<void>;
  running?: { id: number; settle: (outcome: { result: unknown } | { error: Error }) => void };
}

export function functionProcess(options: FunctionProcessOptions): FunctionProcess {
  const maxEnvironments = options.maxEnvironments ?? 4;
  const environments = new Set<Environment>();
  const idle: Environment[] = [];
  const waiting: ((environment: Environment) => void)[] = [];
  let nextId = 0;

  const exitError = (code: number | null, signal: NodeJS.Signals | null) =>
    new InvocationError(
      'Runtime.ExitError',
      `RequestId: ${options.functionName} Error: Runtime exited ${signal ? `with signal ${signal}` : `with error: exit status ${code}`} (log: ${options.logFile})`,
    );

  const start = (): Environment => {
    const log = openSync(options.logFile, 'a');
    const runner = options.runner ?? { command: process.execPath, args: [] };
    const started = spawn(runner.command, [...runner.args, RUNTIME], {
      cwd: options.assetDir,
      env: options.environment,
      stdio: ['ignore', log, log, 'ipc'],
    });
    closeSync(log);
    let initialized = () => {};
    const environment: Environment = { process: started, initialized: new Promise((done) => (initialized = done)) };
    environments.add(environment);
    // An environment that exits during init releases the invocation waiting for it, which then fails below.
    started.once('exit', () => initialized());
    started.on('message', (message: InvocationAnswer) => {
      if ('ready' in message) return initialized();
      if (environment.running?.id !== message.id) return;
      environment.running.settle(
        'result' in message
          ? { result: message.result }
          : { error: new InvocationError(message.error.errorType, message.error.errorMessage) },
      );
    });
    started.on('exit', (code, signal) => {
      environments.delete(environment);
      const at = idle.indexOf(environment);
      if (at >= 0) idle.splice(at, 1);
      environment.running?.settle({ error: exitError(code, signal) });
      // An invocation waiting for an environment gets a new one in its place.
      if (waiting.length > 0) waiting.shift()!(start());
    });
    return environment;
  };

  const acquire = (): Promise<Environment> => {
    const free = idle.pop();
    if (free) return Promise.resolve(free);
    if (environments.size < maxEnvironments) return Promise.resolve(start());
    return new Promise((resolve) => waiting.push(resolve));
  };

  const release = (environment: Environment) => {
    if (!environments.has(environment)) return;
    const next = waiting.shift();
    if (next) next(environment);
    else idle.push(environment);
  };

  /** The invocation's time limit runs from the end of init, as in Lambda, where init has a limit of its own. */
  const run = async (environment: Environment, event: unknown, awsRequestId: string): Promise<unknown> => {
    await environment.initialized;
    if (!environments.has(environment)) throw exitError(environment.process.exitCode, environment.process.signalCode);
    return new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        // Out of service before it is settled, so no other invocation is handed this environment.
        environments.delete(environment);
        environment.running?.settle({
          error: new InvocationError(
            'Sandbox.Timedout',
            `${awsRequestId} Task timed out after ${options.timeoutSeconds.toFixed(2)} seconds`,
          ),
        });
        // Lambda ends the environment of a timed-out invocation.
        environment.process.kill('SIGKILL');
      }, options.timeoutSeconds * 1000);
      environment.running = {
        id,
        settle: (outcome) => {
          clearTimeout(timer);
          environment.running = undefined;
          release(environment);
          if ('result' in outcome) resolve(outcome.result);
          else reject(outcome.error);
        },
      };
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
          deadlineMs: Date.now() + options.timeoutSeconds * 1000,
        },
      };
      environment.process.send(message);
    });
  };

  return {
    async invoke(event, awsRequestId = randomUUID()) {
      return run(await acquire(), event, awsRequestId);
    },
    async close() {
      const all = [...environments];
      environments.clear();
      idle.length = 0;
      await Promise.all(
        all.map(async ({ process: running }) => {
          if (running.exitCode !== null || running.signalCode !== null) return;
          const exited = new Promise((resolve) => running.once('exit', resolve));
          running.disconnect();
          const killer = setTimeout(() => running.kill('SIGKILL'), 2000);
          await exited;
          clearTimeout(killer);
        }),
      );
    },
  };
}
