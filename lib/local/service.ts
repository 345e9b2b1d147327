/**
 * The whole service on one machine: embedded storage, the local token issuer, and the API Gateway front
 * over the real handlers, configured through the same environment variables the Lambda functions read.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { binaryMediaTypes, routes } from '../../functions/routes.ts';
import { closeServer, listenLocally } from './listen.ts';
import { createApiGatewayFront, type ApiGatewayFrontOptions, type RequestAuthorizer } from './api-gateway.ts';
import type { S3CallRecorder } from './s3-calls.ts';
import { ensureTableAndBucket, LOCAL_AWS_ENV, startLocalStorage, type LocalStorage } from './storage.ts';
import { publishEndpoints, withdrawEndpoints } from './shared-storage.ts';
import { ensureSigningKeys, LOCAL_AUDIENCE, LOCAL_ISSUER, type LocalSigningKeys } from './signing-keys.ts';
import { ttlStandIn, withTtlIdentity, type TtlRun } from './ttl.ts';
import { tableStream } from './table-stream.ts';
import { LIBRARY_SWEEPER, streamConsumers, streamCheckpointFile } from './stream-consumers.ts';
import { functionsFromAssets, functionsFromSource } from './function-sources.ts';
import { apiDocs } from './api-docs.ts';
import { currencyText, DEFAULT_CURRENCY } from '../../functions/shared/config.ts';
import { reloadConfig } from '../../functions/shared/env-readers.ts';
import { ruleToQueue, startLocalQueue, type QueueHandler } from './event-delivery.ts';
import { RENDITIONS_SUBSCRIPTION } from '../../functions/contracts/library-events.ts';
import { startLocalSqsFront } from './sqs-front.ts';
import { maxConcurrency } from '../consumer-concurrency.ts';
import { startWebhookQueues, webhookQueueEnv } from './webhook-queues.ts';
import { LOCAL_ARTWORK_LINK_KEY_ALIAS, LOCAL_WEBHOOK_KEY_ALIAS, startLocalKms } from './kms.ts';
import { awsCallLogDir, recordServiceCall } from './aws-call-log.ts';

export interface LocalServiceOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Persistent data directory; omitted: in-memory DynamoDB (or a table of its own on the test run's engine) and temporary S3 and keys, gone on close. */
  dataDir?: string;
  /** Ports of the embedded DynamoDB and S3; 0 (default) picks free ones. A restart in one process must reuse them. */
  dynamoPort?: number;
  s3Port?: number;
  /**
   * Storage already running elsewhere (e.g. in another process, as S3 and DynamoDB are outside a Lambda
   * function); the service then starts none of its own.
   */
  externalStorage?: Pick<LocalStorage, 'dynamoEndpoint' | 's3Endpoint' | 'tableName'>;
  /** Extra environment for the handlers (wins over the process environment). */
  env?: Record<string, string>;
  /** Hook for the front (throttling). */
  beforeRoute?: ApiGatewayFrontOptions['beforeRoute'];
  /** How often the DynamoDB TTL stand-in runs (`expireTtl` on a timer); 0 or omitted: only when called. */
  ttlIntervalMs?: number;
  /**
   * false: no renditions in process. For the request path's benchmarks, which measure the handlers alone, as
   * in AWS, where renditions run in a function of their own after the request has answered.
   */
  renditions?: boolean;
  /** How often the table stream is read for its consumers (the event publisher); 0: only by drainStream(). */
  streamPollMs?: number;
  /**
   * true: every function runs from its synthesized asset (cdk.out.local), in a process of its own with the
   * template's environment (lib/local/bundles/); default: `LOCAL_BUNDLES=1` in the environment. Otherwise
   * the handlers run from source in this process.
   */
  bundles?: boolean;
  /** Told why the local stack is synthesized first, when it is (bundles only). */
  onSynthesize?: (reason: string) => void;
  /** Told of every call to the local S3 whose signature verified (lib/local/s3-calls.ts); not with externalStorage. */
  onS3Request?: S3CallRecorder;
}

export interface LocalService {
  url: string;
  storage: LocalStorage;
  keys: LocalSigningKeys;
  dataDir: string;
  /** Where the functions run from: `source`, or the cloud assembly whose assets run. */
  functionsFrom: string;
  /**
   * DynamoDB's TTL process and the sweeper's stream mapping, run once: deletes the items expired at `nowMs`
   * (default: now) and hands their stream records, filtered as in AWS, to the library sweeper.
   */
  expireTtl(nowMs?: number): Promise<TtlRun>;
  /** Reads the table stream now and hands its consumers what is new: e.g. publishes the events of committed changes. */
  drainStream(): Promise<void>;
  /** Resolves once the events published so far (by the table stream's publisher, or right after a commit) are handled by their in-process consumers (renditions). */
  drainEvents(): Promise<void>;
  close(): Promise<void>;
}

/** CHECKOUT_URL when the environment sets none: the local checkout and builder site of `npm start`. */
export const LOCAL_CHECKOUT_URL = 'http://127.0.0.1:3001';

/** The settings the local stack synthesizes its stack with (LOCAL_BUNDLES): those `npm start` runs with. */
const LOCAL_STAGE = 'local';

/**
 * The CDK context the local stack synthesizes the stack with (LOCAL_BUNDLES): the settings `npm start` runs
 * with, from the environment with the local stack's defaults. The test run's global setup synthesizes with it too.
 */
export const localSynthesisContext = (env: NodeJS.ProcessEnv) => ({
  stage: LOCAL_STAGE,
  checkoutUrl: env.CHECKOUT_URL ?? LOCAL_CHECKOUT_URL,
  // Empty is unset, as for the functions (functions/shared/config.ts).
  currency: env.CURRENCY || DEFAULT_CURRENCY,
  jwtIssuer: env.JWT_ISSUER ?? LOCAL_ISSUER,
  jwtAudience: env.JWT_AUDIENCE ?? LOCAL_AUDIENCE,
  corsAllowedOrigins: env.CORS_ALLOWED_ORIGINS ?? '',
  // A webhook registered by hand (or by a test) hears the very next event: no subscriber cache unless set.
  webhookSubscribersCacheSeconds: env.WEBHOOK_SUBSCRIBERS_CACHE_SECONDS ?? '0',
});

/** Lambda's synchronous invocation payload limit, the tighter of API Gateway's and Lambda's. */
export const MAX_REQUEST_BYTES = 6 * 1024 * 1024;

/** The ports of the KMS and SQS fronts each data folder last had in this process. */
const lastFrontPorts = new Map<string, { kms: number; sqs: number }>();
const portOf = (endpoint: string) => Number(new URL(endpoint).port);

/**
 * A local queue's bound: its event source's in AWS (lib/consumer-concurrency.ts) when the variable is set;
 * unset, the local queue's own small default, since one machine runs every local function where AWS
 * spreads them over its fleet (100 renditions at once would each want a whole core).
 */
const localConcurrency = (consumer: Parameters<typeof maxConcurrency>[0], text: string | undefined) =>
  text === undefined ? undefined : maxConcurrency(consumer, text);

export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  // Refused before anything starts, as the synth refuses it: every checkout would answer it.
  currencyText(options.env?.CURRENCY || process.env.CURRENCY || DEFAULT_CURRENCY, 'environment variable CURRENCY');
  const renditionsConcurrency = localConcurrency(
    'renditions',
    options.env?.RENDITIONS_MAX_CONCURRENCY ?? process.env.RENDITIONS_MAX_CONCURRENCY,
  );
  const maxInFlightText = options.env?.LOCAL_SQS_MAX_IN_FLIGHT ?? process.env.LOCAL_SQS_MAX_IN_FLIGHT;
  const maxInFlight = maxInFlightText === undefined ? undefined : Number(maxInFlightText);
  if (maxInFlight !== undefined && !(Number.isInteger(maxInFlight) && maxInFlight >= 1))
    throw new Error(`LOCAL_SQS_MAX_IN_FLIGHT must be a whole number of at least 1, got ${maxInFlightText}`);
  const deliveriesConcurrency = localConcurrency(
    'webhookDeliveries',
    options.env?.WEBHOOK_MAX_CONCURRENCY ?? process.env.WEBHOOK_MAX_CONCURRENCY,
  );
  const fanoutConcurrency = localConcurrency(
    'webhookFanout',
    options.env?.WEBHOOK_FANOUT_MAX_CONCURRENCY ?? process.env.WEBHOOK_FANOUT_MAX_CONCURRENCY,
  );
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'photo-commerce-'));
  mkdirSync(dataDir, { recursive: true });
  const storage: LocalStorage = options.externalStorage
    ? { ...options.externalStorage, close: async () => {} }
    : await startLocalStorage({
        ...(temporary ? {} : { dataDir }),
        dynamoPort: options.dynamoPort ?? 0,
        s3Port: options.s3Port ?? 0,
        ...(options.onS3Request ? { onS3Request: options.onS3Request } : {}),
      });
  const keys = await ensureSigningKeys(dataDir);
  // The KMS stand-in that seals webhook secrets; its key lives in the data folder, as the signing keys do.
  // The SQS front the webhook functions send deliveries and set retry delays through. Both fronts keep their
  // ports across a restart in one process (the handlers' SDK clients keep the endpoints they were made with).
  const frontPorts = lastFrontPorts.get(dataDir);
  const onCall = awsCallLogDir() ? recordServiceCall : undefined;
  const localKms = await startLocalKms(dataDir, frontPorts?.kms, onCall);
  const sqsFront = await startLocalSqsFront(frontPorts?.sqs, onCall);
  lastFrontPorts.set(dataDir, { kms: portOf(localKms.endpoint), sqs: portOf(sqsFront.endpoint) });

  const defaults: Record<string, string> = {
    TABLE_NAME: 'photo-commerce',
    BUCKET_NAME: 'photo-commerce-images',
    CHECKOUT_URL: LOCAL_CHECKOUT_URL,
    JWT_ISSUER: LOCAL_ISSUER,
    JWT_AUDIENCE: LOCAL_AUDIENCE,
    POWERTOOLS_METRICS_DISABLED: 'true',
    EVENTS_FILE: join(dataDir, 'events.jsonl'),
    WEBHOOK_KMS_KEY_ID: LOCAL_WEBHOOK_KEY_ALIAS,
    ARTWORK_LINK_KEY_ID: LOCAL_ARTWORK_LINK_KEY_ALIAS,
    // Any SDK client without an explicit local endpoint goes to a closed loopback port, never to AWS.
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    ...LOCAL_AWS_ENV,
  };
  // On the test run's shared engine every storage has a table of its own.
  if (storage.tableName) process.env.TABLE_NAME = storage.tableName;
  for (const [name, value] of Object.entries(defaults)) process.env[name] ??= value;
  Object.assign(process.env, options.env ?? {}, {
    DYNAMODB_ENDPOINT: storage.dynamoEndpoint,
    S3_ENDPOINT: storage.s3Endpoint,
    JWT_JWKS_FILE: keys.jwksFile,
    AWS_ENDPOINT_URL_KMS: localKms.endpoint,
    ...webhookQueueEnv(sqsFront.endpoint),
  });
  // The handlers read the environment once; anything they read before this must be read again.
  reloadConfig();
  await ensureTableAndBucket(storage, process.env.TABLE_NAME as string, process.env.BUCKET_NAME as string);
  if (!temporary) publishEndpoints(dataDir, storage);

  const bundles = options.bundles ?? process.env.LOCAL_BUNDLES === '1';
  const functions = bundles
    ? await functionsFromAssets({
        context: localSynthesisContext(process.env),
        env: process.env,
        endpoints: { dynamoEndpoint: storage.dynamoEndpoint, s3Endpoint: storage.s3Endpoint, jwksFile: keys.jwksFile },
        dataDir,
        ...(options.env ? { overrides: options.env } : {}),
        ...(options.onSynthesize ? { onSynthesize: options.onSynthesize } : {}),
      })
    : await functionsFromSource();
  const { loadHandler } = functions;
  const authorizer = (await loadHandler('authorizer')) as unknown as RequestAuthorizer;

  // The queues that published events reach, with their handlers, their messages kept in the data folder:
  // the renditions queue (its EventBridge rule: LibraryItemsAdded) and the webhook pipeline.
  const queueHandler = (name: string) => loadHandler(name) as unknown as Promise<QueueHandler>;
  const renditions =
    options.renditions === false
      ? undefined
      : startLocalQueue({
          name: 'renditions',
          handler: RENDITIONS_SUBSCRIPTION.handler,
          maxReceiveCount: RENDITIONS_SUBSCRIPTION.maxReceiveCount,
          folder: join(dataDir, 'queues', 'renditions'),
          loadHandler: queueHandler,
          ...(renditionsConcurrency !== undefined ? { concurrency: renditionsConcurrency } : {}),
          ...(maxInFlight !== undefined ? { maxInFlight } : {}),
        });
  const unsubscribeRenditions =
    renditions && ruleToQueue(functions.subscribe, (type) => type === RENDITIONS_SUBSCRIPTION.detailType, renditions);
  const webhooks = startWebhookQueues({
    loadHandler: queueHandler,
    subscribe: functions.subscribe,
    sqsFront,
    dataDir,
    ...(deliveriesConcurrency !== undefined ? { deliveriesConcurrency } : {}),
    ...(maxInFlight !== undefined ? { maxInFlight } : {}),
    ...(fanoutConcurrency !== undefined ? { fanoutConcurrency } : {}),
  });
  const events = {
    drain: async () => {
      await renditions?.drain();
      await webhooks.drain();
    },
    close: async () => {
      unsubscribeRenditions?.();
      await renditions?.close();
      await webhooks.close();
    },
  };

  // The table stream's consumers, as its event source mappings run them in AWS (event publisher, library sweeper).
  const stream = tableStream(storage, process.env.TABLE_NAME as string, streamConsumers(loadHandler), {
    ...(temporary ? {} : { checkpointFile: streamCheckpointFile(dataDir) }),
    pollIntervalMs: options.streamPollMs ?? 200,
    prepare: withTtlIdentity,
  });

  const ttl = ttlStandIn(storage, process.env.TABLE_NAME as string);
  /** TTL's deletions, then the stream's delivery of them to the sweeper, as in AWS (with the delay taken out). */
  const expireTtl = async (nowMs?: number): Promise<TtlRun> => {
    const before = (await stream.drain())[LIBRARY_SWEEPER.name] as { handled: number };
    const expired = await ttl.run(nowMs);
    const after = (await stream.drain())[LIBRARY_SWEEPER.name] as { handled: number; retrying: number };
    return { expired, swept: after.handled - before.handled, retrying: after.retrying };
  };
  let ttlRunning: Promise<unknown> = Promise.resolve();
  const ttlTimer =
    options.ttlIntervalMs && options.ttlIntervalMs > 0
      ? setInterval(() => {
          ttlRunning = expireTtl().catch((error: unknown) => process.stderr.write(`TTL stand-in: ${String(error)}\n`));
        }, options.ttlIntervalMs).unref()
      : undefined;

  // The API reference page (GET /docs) is the local front's own, next to the routes; it is not a route (lib/local/api-docs.ts).
  const beforeRoute = (request: IncomingMessage) => apiDocs(request) ?? options.beforeRoute?.(request);
  const server = createApiGatewayFront({
    routes,
    loadHandler,
    authorizer,
    binaryMediaTypes,
    maxBodyBytes: MAX_REQUEST_BYTES,
    beforeRoute,
  });
  const url = await listenLocally(server, options.port, options.host);

  return {
    url,
    storage,
    keys,
    dataDir,
    functionsFrom: functions.from,
    expireTtl,
    drainStream: async () => {
      await stream.drain();
    },
    drainEvents: async () => {
      await stream.drain();
      await events.drain();
    },
    // Each stage stops what feeds the next: requests, then the stream, then the queue (whose messages stay stored).
    async close() {
      await closeServer(server);
      clearInterval(ttlTimer);
      await ttlRunning;
      ttl.close();
      await stream.close();
      await events.close();
      await functions.close();
      await sqsFront.close();
      await localKms.close();
      await storage.close();
      if (temporary) rmSync(dataDir, { recursive: true, force: true });
      else withdrawEndpoints(dataDir);
    },
  };
}
