/**
 * The service's AWS calls in the request's X-Ray trace, without the X-Ray SDK or OpenTelemetry. Each call an
 * SDK client sends becomes one subsegment of the Lambda function's segment, sent as the X-Ray SDK sends it:
 * one UDP datagram to the X-Ray daemon that Lambda runs beside a function with active tracing
 * (AWS_XRAY_DAEMON_ADDRESS), which forwards it with the function role's xray:PutTraceSegments. Nothing waits
 * for the daemon, and nothing is sent when the invocation is not sampled or no daemon is there (locally).
 * SQS messages and EventBridge events carry the trace header on, so the invocations they start join the
 * same trace. Why this and not OpenTelemetry: docs/design.md, Tracing.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:dgram';

/** The prefix of every document the daemon takes. */
const DAEMON_HEADER = '{"format":"json","version":1}\n';

/**
 * The running invocation's trace header (`Root=…;Parent=…;Sampled=1`): Lambda's store of the invocation
 * where it runs several at once, else the variable it sets for each one; as Powertools and the SDK read it.
 */
const currentTraceHeader = (): string | undefined =>
  (
    globalThis as { awslambda?: { InvokeStore?: { getXRayTraceId?: () => string | undefined } } }
  ).awslambda?.InvokeStore?.getXRayTraceId?.() ?? process.env._X_AMZN_TRACE_ID;

const fieldOf = (header: string, name: string): string | undefined =>
  header
    .split(';')
    .find((field) => field.startsWith(`${name}=`))
    ?.slice(name.length + 1);

/** `header` with `parent` as its Parent; its other fields (Lineage, which Lambda's loop detection reads) kept. */
const withParent = (header: string, parent: string): string =>
  header
    .split(';')
    .map((field) => (field.startsWith('Parent=') ? `Parent=${parent}` : field))
    .join(';');

/** The daemon's UDP address: `host:port`, or the `udp:host:port` part of `tcp:… udp:…`. */
function daemonAddress(): { host: string; port: number } | undefined {
  const setting = process.env.AWS_XRAY_DAEMON_ADDRESS;
  if (!setting) return undefined;
  const udp = setting.split(' ').find((part) => part.startsWith('udp:')) ?? setting;
  const [host, port] = udp.replace(/^udp:/, '').split(':');
  return host && port ? { host, port: Number(port) } : undefined;
}

/**
 * One socket for the process: a transport, not a current segment (each call's subsegment is its own). Made
 * at the first sampled call, node:dgram loaded then, so an environment that serves no sampled request (and
 * every local one) never pays for it.
 */
let socket: Socket | undefined;

function sendToDaemon(address: { host: string; port: number }, subsegment: object): void {
  socket ??= process
    .getBuiltinModule('node:dgram')
    .createSocket('udp4')
    .on('error', () => {})
    .unref();
  // A lost subsegment must never fail or slow the call it describes: no answer is awaited, errors are dropped.
  socket.send(`${DAEMON_HEADER}${JSON.stringify(subsegment)}`, address.port, address.host, () => {});
}

interface CallInput {
  TableName?: string;
  Bucket?: string;
  QueueUrl?: string;
  MessageSystemAttributes?: Record<string, unknown>;
  Entries?: Record<string, unknown>[];
}

/** The resource the service map names for a call, by the field X-Ray's own SDK records it under. */
const resourceOf = (input: CallInput) => ({
  ...(input.TableName ? { table_name: input.TableName } : {}),
  ...(input.Bucket ? { bucket_name: input.Bucket } : {}),
  ...(input.QueueUrl ? { queue_url: input.QueueUrl } : {}),
});

const traceAttribute = (header: string) => ({ AWSTraceHeader: { DataType: 'String', StringValue: header } });

/** The input with the trace header on every message or event it sends (SQS's system attribute, EventBridge's field). */
function carryingTrace(operation: string, input: CallInput, header: string): CallInput {
  if (operation === 'SendMessage')
    return { ...input, MessageSystemAttributes: { ...input.MessageSystemAttributes, ...traceAttribute(header) } };
  if (operation === 'SendMessageBatch')
    return {
      ...input,
      Entries: input.Entries?.map((entry) => ({
        ...entry,
        MessageSystemAttributes: { ...(entry.MessageSystemAttributes as object), ...traceAttribute(header) },
      })),
    };
  if (operation === 'PutEvents')
    return { ...input, Entries: input.Entries?.map((entry) => ({ ...entry, TraceHeader: header })) };
  return input;
}

interface Metadata {
  httpStatusCode?: number;
  requestId?: string;
  attempts?: number;
}

/** The status flags X-Ray reads: throttle and error for 429, error for other 4xx, fault for 5xx or no answer. */
function outcomeOf(status: number | undefined): Record<string, unknown> {
  if (status === undefined) return { fault: true };
  const flags = status === 429 ? { error: true, throttle: true } : status >= 500 ? { fault: true } : { error: true };
  return { http: { response: { status } }, ...(status >= 400 ? flags : {}) };
}

type Handler = (args: { input: object }) => Promise<{ output: { $metadata?: Metadata } }>;

interface TracedClient {
  middlewareStack: {
    add(
      middleware: (next: Handler, context: { clientName?: string; commandName?: string }) => Handler,
      options: { step: 'initialize'; name: string; priority: 'high' },
    ): void;
  };
}

/**
 * Puts every call `client` sends into the running invocation's trace: a subsegment (service, operation,
 * resource, status, retries, start and end) per call, retries included; and the trace header on what
 * SQS and EventBridge pass on. Answers the client, so a client module can stay one pure expression.
 */
export function traced<Client extends TracedClient>(client: Client): Client {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const header = currentTraceHeader();
      if (!header) return next(args);
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      const root = fieldOf(header, 'Root');
      const parent = fieldOf(header, 'Parent');
      const address = daemonAddress();
      if (!root || !parent || fieldOf(header, 'Sampled') !== '1' || !address)
        return next({ ...args, input: carryingTrace(operation, args.input, header) });

      const id = randomBytes(8).toString('hex');
      const input = args.input as CallInput;
      const start = Date.now() / 1000;
      const record = (metadata: Metadata | undefined) =>
        sendToDaemon(address, {
          name: (context.clientName ?? '').replace(/Client$/, ''),
          id,
          trace_id: root,
          parent_id: parent,
          type: 'subsegment',
          namespace: 'aws',
          start_time: start,
          end_time: Date.now() / 1000,
          aws: {
            operation,
            request_id: metadata?.requestId,
            retries: Math.max(0, (metadata?.attempts ?? 1) - 1),
            ...resourceOf(input),
          },
          ...outcomeOf(metadata?.httpStatusCode),
        });
      try {
        const result = await next({ ...args, input: carryingTrace(operation, input, withParent(header, id)) });
        record(result.output.$metadata);
        return result;
      } catch (error) {
        record((error as { $metadata?: Metadata }).$metadata);
        throw error;
      }
    },
    // Outermost: one subsegment per call, its retries inside.
    { step: 'initialize', name: 'xraySubsegment', priority: 'high' },
  );
  return client;
}
