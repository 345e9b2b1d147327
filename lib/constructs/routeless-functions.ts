/** The functions that serve no route, each with its module, purpose and size (routes: route-groups.ts). */
import { Duration } from 'aws-cdk-lib';
import type { HandlerFunctionProps } from './handler-function.ts';

/** A function that serves no route: module, purpose and size. */
export type RoutelessFunction = Pick<HandlerFunctionProps, 'handler' | 'description' | 'memorySize' | 'timeout'>;

/** The functions that serve no route (routes are sized in lib/constructs/route-groups.ts). */
export const ROUTELESS_FUNCTIONS = {
  authorizer: {
    handler: 'authorizer',
    description: 'REQUEST authorizer: bearer JWT (issuer JWKS) or X-SERVICE-API-Key (hashed in the table)',
    memorySize: 512,
    timeout: Duration.seconds(5),
  },
  renditions: {
    handler: 'make-renditions',
    description:
      'Renditions queue (LibraryItemsAdded): makes the Thumbnail and Preview of each committed image and records them',
    // Measured (BENCHMARKS.md, figure 8b): a 50-megapixel image peaks at 0.3 GB as JPEG or PNG and at 0.73 GB
    // as HEIC (decoded whole in WebAssembly). 1769 MB holds that with room, and is where Lambda gives one
    // whole vCPU: the decoders are CPU-bound, so the time per image halves against 1024 MB at about the same
    // price per image.
    memorySize: 1769,
    timeout: Duration.minutes(5),
  },
  sweeper: {
    handler: 'sweep-library-leftovers',
    description:
      'Table stream (TTL deletions of ingest intents, pending and resumable uploads): removes what uncommitted library requests left behind',
    memorySize: 256,
    timeout: Duration.minutes(1),
  },
  webhookFanout: {
    handler: 'webhook-fanout',
    description: 'Webhook fan-out queue (subscribable events): one delivery per subscribed webhook, queued',
    memorySize: 256,
    timeout: Duration.seconds(30),
  },
  // One attempt waits at most WEBHOOK_TIMEOUT_MS (10 s) for a receiver; the rest is a few table and KMS calls.
  webhookDeliver: {
    handler: 'webhook-deliver',
    description: "Webhook deliveries queue: one signed POST to the webhook's URL per message, retried on the schedule",
    memorySize: 256,
    timeout: Duration.seconds(30),
  },
  // A batch of 100 is published in 10 PutEvents of 10 entries, a fraction of a second, so the timeout only
  // bounds a hung call (the SDK's own retries included) before the stream retries the batch.
  publisher: {
    handler: 'publish-events',
    description: "Table stream (new outbox records): puts each committed change's domain event on the EventBridge bus",
    memorySize: 256,
    timeout: Duration.seconds(30),
  },
} satisfies Record<string, RoutelessFunction>;
