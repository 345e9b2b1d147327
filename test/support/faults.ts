/**
 * Fault injection through the AWS SDK's middleware stack, on the service's real clients (the test harness
 * runs the handlers in-process, so `dynamoDbClient` and `s3` from functions/shared/clients/ are the ones
 * the handlers use). No SDK mock: the faulty answer is a raw HTTP response in the service's own wire form,
 * decoded by the SDK's real deserializer and seen by its real retry strategy, or a transport error thrown
 * where the HTTP handler would throw it.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';

type Client = Pick<DynamoDBClient | S3Client, 'middlewareStack'>;

/** What a matching call gets instead of (or after) its real answer. */
export type FaultKind =
  /** DynamoDB 400 ProvisionedThroughputExceededException (the SDK classifies it as throttling and retries). */
  | 'dynamo-throughput'
  /** DynamoDB 400 ThrottlingException. */
  | 'dynamo-throttling'
  /** DynamoDB 400 ConditionalCheckFailedException: as if another writer won every race. */
  | 'dynamo-conditional'
  /** S3 500 InternalError (XML), what a failing UploadPart/PutObject answers. */
  | 's3-internal'
  /** S3 503 SlowDown. */
  | 's3-slowdown'
  /** The request times out before it reaches the service (node-http-handler's TimeoutError). */
  | 'timeout'
  /** The request reaches the service and is applied; the answer is lost (socket reset). */
  | 'lost-response'
  /** No fault: the request is sent as it was, only once `after` settles (a test's choice of interleaving). */
  | 'delayed';

export interface FaultRule {
  /** SDK command name, e.g. 'PutItemCommand', 'UploadPartCommand'; or a predicate over it and the input. */
  command: string | ((commandName: string, input: Record<string, unknown>) => boolean);
  kind: FaultKind;
  /** Matching calls to let through before failing (default 0). */
  skip?: number;
  /** How many matching calls fail after the skipped ones (default: all of them). */
  times?: number;
  /** A failing call answers only once this settles (default: at once): lets a test choose when a call fails. */
  after?: Promise<unknown>;
}

export interface FaultHandle {
  /** Matching calls seen (each SDK retry attempt counts). */
  readonly matched: number;
  /** Calls that got the fault. */
  readonly injected: number;
  /** Every command name that went through this client while the fault was installed, in order. */
  readonly commands: readonly string[];
  remove(): void;
}

interface RawResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

const dynamoError = (type: string, message: string): RawResponse => ({
  statusCode: 400,
  headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'FAULT-INJECTED' },
  body: new TextEncoder().encode(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message })),
});

const s3Error = (statusCode: number, code: string, message: string): RawResponse => ({
  statusCode,
  headers: { 'content-type': 'application/xml', 'x-amz-request-id': 'FAULT-INJECTED' },
  body: new TextEncoder().encode(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>FAULT-INJECTED</RequestId></Error>`,
  ),
});

const transportError = (name: string, code: string, message: string): Error =>
  Object.assign(new Error(message), { name, code });

function rawResponse(kind: FaultKind): RawResponse | undefined {
  switch (kind) {
    case 'dynamo-throughput':
      return dynamoError(
        'ProvisionedThroughputExceededException',
        'The level of configured provisioned throughput for the table was exceeded.',
      );
    case 'dynamo-throttling':
      return dynamoError('ThrottlingException', 'Rate of requests exceeds the allowed throughput.');
    case 'dynamo-conditional':
      return dynamoError('ConditionalCheckFailedException', 'The conditional request failed');
    case 's3-internal':
      return s3Error(500, 'InternalError', 'We encountered an internal error. Please try again.');
    case 's3-slowdown':
      return s3Error(503, 'SlowDown', 'Please reduce your request rate.');
    default:
      return undefined;
  }
}

let installed = 0;

/**
 * Installs one fault on a client. The middleware sits innermost in the deserialize step, i.e. inside the
 * SDK's retry loop and right in front of the HTTP handler, so every retry attempt passes through it.
 */
export function injectFault(client: Client, rule: FaultRule): FaultHandle {
  const name = `fault-injection-${++installed}`;
  const matches =
    typeof rule.command === 'string' ? (commandName: string) => commandName === rule.command : rule.command;
  const skip = rule.skip ?? 0;
  const times = rule.times ?? Number.POSITIVE_INFINITY;
  const state = { matched: 0, injected: 0, commands: [] as string[] };

  const middleware =
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
    async (args: unknown): Promise<unknown> => {
      const commandName = context.commandName ?? '';
      state.commands.push(commandName);
      const input = ((args as { input?: Record<string, unknown> }).input ?? {}) as Record<string, unknown>;
      if (!matches(commandName, input)) return next(args);
      const index = state.matched++;
      if (index < skip || index >= skip + times) return next(args);
      state.injected++;
      if (rule.after) await rule.after.catch(() => {});
      if (rule.kind === 'timeout') {
        throw transportError('TimeoutError', 'ETIMEDOUT', 'Connection timed out after 1000 ms (fault injected)');
      }
      if (rule.kind === 'delayed') return next(args);
      if (rule.kind === 'lost-response') {
        await next(args);
        throw transportError('Error', 'ECONNRESET', 'socket hang up (fault injected after the request was applied)');
      }
      return { response: rawResponse(rule.kind), output: undefined };
    };

  (client.middlewareStack as { add(m: unknown, o: unknown): void }).add(middleware, {
    step: 'deserialize',
    priority: 'low',
    name,
    override: true,
  });
  return {
    get matched() {
      return state.matched;
    },
    get injected() {
      return state.injected;
    },
    get commands() {
      return state.commands;
    },
    remove() {
      (client.middlewareStack as { remove(n: string): boolean }).remove(name);
    },
  };
}

/** Installs several faults and removes them all at once. */
export function injectFaults(client: Client, rules: FaultRule[]): FaultHandle[] & { remove(): void } {
  const handles = rules.map((rule) => injectFault(client, rule));
  return Object.assign(handles, { remove: () => handles.forEach((handle) => handle.remove()) });
}
