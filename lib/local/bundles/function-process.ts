/**
 * One synthesized function as Lambda runs it, locally. Each execution environment is a child process
 * (lib/local/bundles/function-runtime.ts) in the asset's folder, with exactly the environment the caller
 * gives it and the heap limits Lambda derives from its memory size, its output appended to a log file of its
 * own (its log group's stand-in), and, as in Lambda, one invocation at a time. A new environment starts (a cold start) when every one is busy, up to
 * `maxEnvironments`; beyond that an invocation waits for the first one free (where Lambda would start yet
 * another: the machine running this has two cores, not a fleet), and its timeout runs from when it starts.
 * An invocation that outlives the function's timeout ends its environment, as Lambda does, and fails with
 * Lambda's message; an environment that dies fails its invocation with the end of its stderr (what it died
 * of: a variable it lacks, a heap out of memory), and later ones start new environments.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Invocation, InvocationAnswer } from './function-runtime.ts';

const RUNTIME = fileURLToPath(new URL('./function-runtime.ts', import.meta.url));
/** How much of an environment's stderr its failure quotes (characters). */
const OUTPUT_KEPT = 4000;

/**
 * The V8 heap limits Lambda's Node.js runtime starts a function of `memorySize` MB with (its bootstrap,
 * /var/runtime/bootstrap: a tenth for the young generation, whose semi-spaces are half of that, the rest
 * for the old one), so a handler that holds more than its memory dies here as there.
 */
export function lambdaHeapFlags(memorySize: number): string[] {
  const newSpace = Math.floor(memorySize / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memorySize - newSpace}`];
}

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
  ended: Promise<void>;
  /** The end of what it wrote to stderr, which a failure of its process quotes. */
  output: string;
  running?: { id: number; settle: (outcome: { result: unknown } | { error: Error }) => void };
}

export function functionProcess(options: FunctionProcessOptions): FunctionProcess {
  const maxEnvironments = options.maxEnvironments ?? 4;
  const environments = new Set<Environment>();
  const idle: Environment[] = [];
  const waiting: ((environment: Environment) => void)[] = [];
  let nextId = 0;

  const exitError = ({ process: ended, output }: Environment) =>
    new InvocationError(
      'Runtime.ExitError',
      `RequestId: ${options.functionName} Error: Runtime exited ${ended.signalCode ? `with signal ${ended.signalCode}` : `with error: exit status ${ended.exitCode}`} (log: ${options.logFile})${output ? `; its last output:\n${output}` : ''}`,
    );

  const start = (): Environment => {
    const log = openSync(options.logFile, 'a');
    const runner = options.runner ?? { command: process.execPath, args: [] };
    const started = spawn(runner.command, [...runner.args, ...lambdaHeapFlags(options.memorySize), RUNTIME], {
      cwd: options.assetDir,
      env: options.environment,
      // stderr passes through here to the log, so an environment that dies can say why (a missing variable).
      stdio: ['ignore', log, 'pipe', 'ipc'],
    });
    let initialized = () => {};
    const environment: Environment = {
      process: started,
      initialized: new Promise((done) => (initialized = done)),
      // Its end: exited, and all its stderr read, which may come before or after ('close' never comes once the channel is disconnected).
      ended: Promise.all([
        new Promise((done) => started.once('exit', done)),
        new Promise((done) => started.stderr!.once('close', done)),
      ]).then(() => {}),
      output: '',
    };
    environments.add(environment);
    started.stderr!.on('data', (chunk: Buffer) => {
      writeSync(log, chunk);
      environment.output = (environment.output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
    });
    started.on('message', (message: InvocationAnswer) => {
      if ('ready' in message) return initialized();
      if (environment.running?.id !== message.id) return;
      environment.running.settle(
        'result' in message
          ? { result: message.result }
          : { error: new InvocationError(message.error.errorType, message.error.errorMessage) },
      );
    });
    void environment.ended.then(() => {
      closeSync(log);
      environments.delete(environment);
      const at = idle.indexOf(environment);
      if (at >= 0) idle.splice(at, 1);
      environment.output = environment.output.trim();
      environment.running?.settle({ error: exitError(environment) });
      // An environment that exits during init releases the invocation waiting for it, which then fails below.
      initialized();
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
    if (!environments.has(environment)) throw exitError(environment);
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
        all.map(async ({ process: running, ended }) => {
          if (running.exitCode === null && running.signalCode === null) {
            running.disconnect();
            const killer = setTimeout(() => running.kill('SIGKILL'), 2000);
            await ended;
            clearTimeout(killer);
          } else await ended;
        }),
      );
    },
  };
}
