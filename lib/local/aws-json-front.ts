/**
 * The HTTP front of a local stand-in for an AWS service that speaks the JSON protocol (EventBridge, KMS):
 * the operation is named by the `X-Amz-Target` header (`<prefix><Operation>`), the request and answer are
 * JSON. An operation that is not served answers UnknownOperationException, a thrown AwsJsonError its own
 * type with 400, anything else 500 InternalFailure, so the real SDK client sees what it would see from AWS.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { closeServer, listenLocally } from './listen.ts';

/** An error the service itself answers, by its `__type` (e.g. NotFoundException). */
export class AwsJsonError extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

export type AwsJsonOperation = (input: any, request: IncomingMessage) => unknown;

export interface AwsJsonFront {
  endpoint: string;
  close: () => Promise<void>;
}

/** The access key id that signed `request` (its SigV4 `Credential=`), as the call log records it. */
export const signerOf = (request: IncomingMessage): string =>
  /Credential=([^/]+)\//.exec(request.headers.authorization ?? '')?.[1] ?? '';

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Serves `operations` on a loopback port: `port` when it is free (a restart in one process keeps its
 * endpoint, which the handlers' SDK clients were configured with), else a free one. `targetPrefix` is the
 * service's (`AWSEvents.`, `TrentService.`).
 */
export async function startAwsJsonFront(
  targetPrefix: string,
  operations: Record<string, AwsJsonOperation>,
  port = 0,
): Promise<AwsJsonFront> {
  const server: Server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(body));
    };
    void (async () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const body = await bodyOf(request);
      const operation = target.startsWith(targetPrefix) ? operations[target.slice(targetPrefix.length)] : undefined;
      if (!operation)
        return answer(400, { __type: 'UnknownOperationException', message: `${target} is not served locally` });
      try {
        answer(200, await operation(JSON.parse(body), request));
      } catch (error) {
        if (!(error instanceof AwsJsonError)) throw error;
        answer(400, { __type: error.type, message: error.message });
      }
    })().catch((error: unknown) => answer(500, { __type: 'InternalFailure', message: String(error) }));
  });
  const endpoint = await listenLocally(server, port, '127.0.0.1').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE' || port === 0) throw error;
    return listenLocally(server, 0, '127.0.0.1');
  });
  return { endpoint, close: () => closeServer(server) };
}
