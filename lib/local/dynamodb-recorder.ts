/**
 * A loopback HTTP proxy in front of DynamoDB Local that records each function's calls in the AWS call log
 * (aws-call-log.ts) as the IAM requests they stand for (dynamodb-iam-requests.ts), and forwards every
 * request unchanged. Put in front of the engine only when the log is on (AWS_CALL_LOG_DIR), so `npm start`
 * and the benchmarks talk to the engine directly. DynamoDB Local runs with -sharedDb, so the callers'
 * different access keys all see the same tables.
 */
import { Agent, createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import { recordAwsCall } from './aws-call-log.ts';
import { dynamoDbIamRequests } from './dynamodb-iam-requests.ts';
import { functionOfAccessKey } from './function-credentials.ts';
import { closeServer, listenLocally } from './listen.ts';

export interface DynamoDbRecorder {
  /** The proxy's endpoint: give it to the clients instead of the engine's. */
  endpoint: string;
  /** Items written through the proxy so far, by every caller (each one a stream record). */
  itemsWritten(): number;
  close(): Promise<void>;
}

/** The access key id of a SigV4 Authorization header (`... Credential=AKID/date/region/service/aws4_request, ...`). */
export const accessKeyIdOf = (authorization: string | undefined): string | undefined =>
  /Credential=([^/,\s]+)\//.exec(authorization ?? '')?.[1];

const readBody = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** How many items a write request writes (an upper bound: a refused condition writes none). */
function itemsWrittenBy(operation: string, parsed: Record<string, unknown>): number {
  if (operation === 'PutItem' || operation === 'UpdateItem' || operation === 'DeleteItem') return 1;
  if (operation === 'TransactWriteItems') return (parsed.TransactItems as unknown[] | undefined)?.length ?? 0;
  if (operation === 'BatchWriteItem')
    return Object.values((parsed.RequestItems ?? {}) as Record<string, unknown[]>).reduce(
      (sum, requests) => sum + requests.length,
      0,
    );
  return 0;
}

/**
 * Records the call when a function signed it, and answers how many items it writes; a body that is no
 * JSON is the engine's to refuse.
 */
function record(request: IncomingMessage, body: Buffer, logDir: string): number {
  const operation = String(request.headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, '');
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return 0;
  }
  const accessKeyId = accessKeyIdOf(request.headers.authorization);
  if (accessKeyId !== undefined && functionOfAccessKey(accessKeyId) !== undefined)
    for (const iamRequest of dynamoDbIamRequests(operation, parsed))
      recordAwsCall({ accessKeyId, ...iamRequest, via: operation }, logDir);
  return itemsWrittenBy(operation, parsed);
}

/** Starts the proxy in front of `engineEndpoint`, recording into `logDir`. */
export async function startDynamoDbRecorder(engineEndpoint: string, logDir: string): Promise<DynamoDbRecorder> {
  const engine = new URL(engineEndpoint);
  const agent = new Agent({ keepAlive: true });
  let itemsWritten = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void readBody(request).then(
      (body) => {
        itemsWritten += record(request, body, logDir);
        const upstream = forward(
          {
            agent,
            hostname: engine.hostname,
            port: engine.port,
            method: request.method,
            path: request.url,
            headers: request.headers,
          },
          (answer) => {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
          },
        );
        // The engine gone (stopping at the end of a run): the client sees a dropped connection, as from the engine.
        upstream.on('error', () => response.destroy());
        upstream.end(body);
      },
      () => response.destroy(),
    );
  });
  const endpoint = await listenLocally(server);
  return {
    endpoint,
    itemsWritten: () => itemsWritten,
    async close() {
      await closeServer(server);
      agent.destroy();
    },
  };
}
