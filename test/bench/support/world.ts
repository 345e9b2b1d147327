/**
 * The in-process world the storage, overhead and cold-start benchmarks share: the real local service
 * (DynamoDB Local, s3rver, API Gateway front, authorizer) on loopback, a DynamoDB probe on the handlers' client,
 * and API Gateway events captured from the real front, so a handler can be invoked in-process with
 * exactly the event (authorizer context included) API Gateway would hand it.
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { startTestService, type RequestOptions, type TestService } from '../../support/service.ts';
import { createApiGatewayFront, type ProxyHandler, type RequestAuthorizer } from '../../../lib/local/api-gateway.ts';
import { lambdaContext } from '../../../lib/local/lambda-event.ts';
import { MAX_REQUEST_BYTES } from '../../../lib/local/service.ts';
import { binaryMediaTypes, routes } from '../../../functions/routes.ts';
import { DynamoProbe } from './dynamo-probe.ts';
import { warmEngine } from './warm-engine.ts';

export interface World {
  service: TestService;
  probe: DynamoProbe;
  /** The event the real front (with the real authorizer) builds for this request. */
  capture(method: string, path: string, options?: RequestOptions): Promise<APIGatewayProxyEvent>;
  /** A ready invocation: its own copy of the event and a fresh Lambda context, made before it is called. */
  prepare(handlerName: string, event: APIGatewayProxyEvent): Promise<() => Promise<APIGatewayProxyResult>>;
  invoke(handlerName: string, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult>;
  close(): Promise<void>;
}

export const handlerFile = (name: string): URL => new URL(`../../../functions/handlers/${name}.ts`, import.meta.url);

/** Route handlers whose module exists yet (others are being written in parallel). */
export const presentHandlers = (): Set<string> =>
  new Set(routes.map((route) => route.handler).filter((name) => existsSync(handlerFile(name))));

export async function startWorld(env: Record<string, string> = {}): Promise<World> {
  // The handlers alone, as in AWS: renditions and the stream's consumers (event publisher, sweeper) run in
  // functions of their own, so the stream is not read in this process while requests are measured.
  const service = await startTestService({
    env: { POWERTOOLS_LOG_LEVEL: 'ERROR', ...env },
    renditions: false,
    streamPollMs: 0,
  });
  // Imported after the service set the environment: the handlers' clients read it once, at load.
  const { dynamoDbClient } = await import('../../../functions/shared/clients/dynamodb.ts');
  await warmEngine(dynamoDbClient, process.env.TABLE_NAME as string);
  const probe = new DynamoProbe(dynamoDbClient, service.storage.dynamoEndpoint, process.env.AWS_REGION as string);
  const { handler: authorizer } = (await import('../../../functions/handlers/authorizer.ts')) as {
    handler: RequestAuthorizer;
  };

  let captured: APIGatewayProxyEvent | undefined;
  const front = createApiGatewayFront({
    routes,
    authorizer,
    binaryMediaTypes,
    maxBodyBytes: MAX_REQUEST_BYTES,
    loadHandler: async () => async (event) => {
      captured = event;
      return { statusCode: 204, body: '' };
    },
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', () => resolve()));
  const frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;

  const handlers = new Map<string, ProxyHandler>();
  const load = async (name: string): Promise<ProxyHandler> => {
    let handler = handlers.get(name);
    if (!handler) {
      handler = ((await import(handlerFile(name).href)) as { handler: ProxyHandler }).handler;
      handlers.set(name, handler);
    }
    return handler;
  };

  const prepare: World['prepare'] = async (handlerName, event) => {
    const handler = await load(handlerName);
    // The middleware normalizes headers in place; every invocation gets its own copy, as in Lambda.
    const copy = structuredClone(event);
    const context = lambdaContext(handlerName);
    return () => handler(copy, context);
  };

  return {
    service,
    probe,
    prepare,
    async capture(method, path, options = {}) {
      captured = undefined;
      const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
      if (options.token) headers.Authorization = `Bearer ${options.token}`;
      if (options.apiKey) headers['X-SERVICE-API-Key'] = options.apiKey;
      let body = options.body;
      if (options.json !== undefined) {
        headers['Content-Type'] ??= 'application/json';
        body = JSON.stringify(options.json);
      }
      const response = await fetch(`${frontUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      if (!captured) throw new Error(`the front did not pass ${method} ${path} on: ${response.status} ${text}`);
      return captured;
    },
    async invoke(handlerName, event) {
      return (await prepare(handlerName, event))();
    },
    async close() {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await service.close();
    },
  };
}
