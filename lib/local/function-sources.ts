/**
 * Where the local stack's functions run from: the handlers from source in this process (`npm start`, most
 * tests), or every function from its synthesized asset in a process of its own (`LOCAL_BUNDLES=1`,
 * lib/local/bundles/), publishing to a local EventBridge. Either way the front, the stream and the queue
 * stand-ins reach a function by its handler module's name.
 */
import { join } from 'node:path';
import { subscribeLocally } from '../../functions/shared/events.ts';
import type { ProxyHandler } from './api-gateway.ts';
import { awsCallLogDir, recordServiceCall } from './aws-call-log.ts';
import { startBundledFunctions, type LocalEndpoints } from './bundles/bundled-functions.ts';
import { startLocalEventBus } from './eventbridge.ts';
import { captureEmfLines } from './metric-log.ts';
import {
  asInvocationOf,
  runningFunction,
  scopeInvocations,
  signAsRunningFunction,
  traceHeaderOf,
} from './source-invocations.ts';
import { fromSource } from './stream-consumers.ts';

/** The bus the local EventBridge holds (assets only; from source, events go to EVENTS_FILE). */
const LOCAL_EVENT_BUS = 'photo-commerce-local-events';

export interface LocalFunctions {
  /** `source`, or the cloud assembly whose assets run. */
  from: string;
  /** A function's handler, by its module name under functions/handlers/. */
  loadHandler: (name: string) => Promise<ProxyHandler>;
  /** The local EventBridge rules' subscription to published events. */
  subscribe: (subscriber: Parameters<typeof subscribeLocally>[0]) => () => void;
  close(): Promise<void>;
}

/**
 * The handlers from source, in this process; imported after the environment is set, as in a cold start.
 * Each invocation signs its AWS calls with its function's own credentials and logs with its own Lambda
 * context (source-invocations.ts); in a test run their metrics go to the metric log (metric-log.ts).
 */
export async function functionsFromSource(): Promise<LocalFunctions> {
  const [{ dynamoDbClient }, { s3 }, { kms }, { sqs }] = await Promise.all([
    import('../../functions/shared/clients/dynamodb.ts'),
    import('../../functions/shared/clients/s3.ts'),
    import('../../functions/shared/clients/kms.ts'),
    import('../../functions/shared/clients/sqs.ts'),
  ]);
  for (const client of [dynamoDbClient, s3, kms, sqs]) signAsRunningFunction(client as never);
  scopeInvocations();
  captureEmfLines(runningFunction);
  const handlers = new Map<string, Promise<ProxyHandler>>();
  return {
    from: 'source',
    loadHandler(name) {
      let loaded = handlers.get(name);
      if (!loaded) {
        loaded = (fromSource(name) as Promise<ProxyHandler>).then(
          (handler): ProxyHandler =>
            (event, context) =>
              asInvocationOf(name, context.awsRequestId, () => handler(event, context), traceHeaderOf(event)),
        );
        handlers.set(name, loaded);
      }
      return loaded;
    },
    subscribe: subscribeLocally,
    close: async () => {},
  };
}

export interface AssetFunctionsOptions {
  /** The CDK context the local stack is synthesized with (localSynthesisContext of service.ts). */
  context: Record<string, string> & { stage: string };
  /** The environment after the local stack's defaults: TABLE_NAME, BUCKET_NAME, EVENTS_FILE, AWS_REGION. */
  env: Record<string, string | undefined>;
  endpoints: Omit<LocalEndpoints, 'eventBridgeEndpoint' | 'region' | 'kmsEndpoint' | 'sqsEndpoint'>;
  dataDir: string;
  overrides?: Record<string, string>;
  onSynthesize?: (reason: string) => void;
}

/** The functions from their synthesized assets, each in a process of its own, publishing to a local EventBridge. */
export async function functionsFromAssets(options: AssetFunctionsOptions): Promise<LocalFunctions> {
  const { env } = options;
  const bus = await startLocalEventBus({
    busName: LOCAL_EVENT_BUS,
    eventsFile: env.EVENTS_FILE!,
    ...(awsCallLogDir() ? { onCall: recordServiceCall } : {}),
  });
  const bundled = startBundledFunctions({
    context: options.context,
    resources: {
      tableName: env.TABLE_NAME!,
      bucketName: env.BUCKET_NAME!,
      eventBusName: LOCAL_EVENT_BUS,
      webhookDeliveryQueueUrl: env.WEBHOOK_DELIVERY_QUEUE_URL!,
      webhookKeyId: env.WEBHOOK_KMS_KEY_ID!,
      artworkLinkKeyId: env.ARTWORK_LINK_KEY_ID!,
    },
    endpoints: {
      ...options.endpoints,
      region: env.AWS_REGION!,
      eventBridgeEndpoint: bus.endpoint,
      kmsEndpoint: env.AWS_ENDPOINT_URL_KMS!,
      sqsEndpoint: env.AWS_ENDPOINT_URL_SQS!,
    },
    logDir: join(options.dataDir, 'logs'),
    ...(options.overrides ? { overrides: options.overrides } : {}),
    ...(options.onSynthesize ? { onSynthesize: options.onSynthesize } : {}),
  });
  return {
    from: bundled.outdir,
    loadHandler: async (name) => (event, context) =>
      bundled.invoke(name, event, context?.awsRequestId) as ReturnType<ProxyHandler>,
    subscribe: bus.subscribe,
    async close() {
      await bundled.close();
      await bus.close();
    },
  };
}
