/**
 * The renditions asset on arm64, as Lambda runs it: the asset in the cdk.out.local the run's global setup
 * synthesized (its esbuild bundle and sharp's linux-arm64 binaries) runs in the arm64 Node of the root's
 * `node` version under Debian's qemu-user-static, with Debian's arm64 C libraries (test/support/arm64.ts),
 * through the local stack's Lambda runtime stand-in (lib/local/bundles/) with the environment it gives every
 * function run from its asset, on the SQS event its queue would deliver. A JPEG and a HEIC (libheif-js, which
 * reads `__dirname`) pushed through the local service get Ready renditions that this machine's sharp reads
 * back. Slow (tens of seconds under emulation), no timing asserted. Without qemu or the arm64 libraries it
 * fails with what to install.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqsEvent } from '../../lib/local/event-delivery.ts';
import { localSynthesisContext } from '../../lib/local/service.ts';
import { functionEnvironment } from '../../lib/local/bundles/bundled-functions.ts';
import { functionProcess, type FunctionProcess } from '../../lib/local/bundles/function-process.ts';
import { synthesizedFunctions } from '../../lib/local/bundles/synthesized-stack.ts';
import { lambdaTaskRoot } from '../../lib/local/bundles/lambda-task.ts';
import type { EventEnvelope } from '../../functions/shared/events.ts';
import { ITEMS_ADDED } from '../../functions/contracts/library-events.ts';
import { ARM64_RUNNER, arm64Missing } from '../support/arm64.ts';
import { pushFiles } from '../support/library-push.ts';
import { startTestService, type TestService } from '../support/service.ts';

const FIXTURES = ['rendition-gps-orientation-6.jpg', 'heic.heic'];
const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));

// Renditions are not made in process: only the arm64 asset makes them here.
let service: TestService | undefined;
let renditions: FunctionProcess | undefined;
let apiKey: string;

beforeAll(async () => {
  const missing = arm64Missing();
  if (missing) throw new Error(missing);
  service = await startTestService({ renditions: false });
  apiKey = await service.apiKey('renditions-arm64', 'library');
  const env = process.env as Record<string, string>;
  const fn = synthesizedFunctions(
    {
      tableName: env.TABLE_NAME!,
      bucketName: env.BUCKET_NAME!,
      eventBusName: 'unused',
      webhookDeliveryQueueUrl: env.WEBHOOK_DELIVERY_QUEUE_URL!,
      webhookKeyId: env.WEBHOOK_KMS_KEY_ID!,
      artworkLinkKeyId: env.ARTWORK_LINK_KEY_ID!,
    },
    localSynthesisContext(env).stage,
  ).find((candidate) => candidate.module === 'make-renditions')!;
  renditions = functionProcess({
    functionName: fn.functionName,
    // Its copy as LOCAL_BUNDLES runs it, with no twins: the arm64 packages it ships are this runner's.
    assetDir: lambdaTaskRoot(fn.assetDir, 'arm64'),
    timeoutSeconds: fn.timeoutSeconds,
    memorySize: fn.memorySize,
    environment: functionEnvironment(fn, {
      region: env.AWS_REGION!,
      kmsEndpoint: env.AWS_ENDPOINT_URL_KMS!,
      sqsEndpoint: env.AWS_ENDPOINT_URL_SQS!,
      dynamoEndpoint: service.storage.dynamoEndpoint,
      s3Endpoint: service.storage.s3Endpoint,
      eventBridgeEndpoint: 'http://127.0.0.1:9',
      jwksFile: service.keys.jwksFile,
    }),
    logFile: join(service.dataDir, 'make-renditions-arm64.log'),
    runner: ARM64_RUNNER,
  });
}, 300_000);

afterAll(async () => {
  await renditions?.close();
  await service?.close();
});

/** The LibraryItemsAdded envelope the service published for `itemGuids` (the rule's target gets it as is). */
async function itemsAddedEnvelope(itemGuids: string[]): Promise<EventEnvelope> {
  await service!.drainStream();
  const envelopes = readFileSync(process.env.EVENTS_FILE!, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as EventEnvelope);
  const envelope = envelopes.find(
    (candidate) => candidate['detail-type'] === ITEMS_ADDED && String(candidate.detail.ItemGuids) === String(itemGuids),
  );
  expect(envelope, 'the push published LibraryItemsAdded').toBeDefined();
  return envelope!;
}

const libraryItem = async (itemGuid: string) => {
  const read = await service!.request('GET', `/library/${itemGuid}`, { apiKey });
  expect(read.status, read.text).toBe(200);
  return read.body.LibraryItem;
};

it('the asset, run by arm64 Node under qemu on its queue event, makes Ready renditions of a JPEG and a HEIC', async () => {
  const { itemGuids } = await pushFiles(
    service!.url,
    apiKey,
    FIXTURES.map((name) => ({ name, bytes: fixture(name) })),
  );
  for (const itemGuid of itemGuids) expect((await libraryItem(itemGuid)).Renditions.Status).toBe('Pending');

  const answer = await renditions!.invoke(sqsEvent(await itemsAddedEnvelope(itemGuids), 1));
  expect(answer).toEqual({ batchItemFailures: [] });

  for (const [index, itemGuid] of itemGuids.entries()) {
    const item = await libraryItem(itemGuid);
    expect(item.Renditions.Status, `${FIXTURES[index]}: ${JSON.stringify(item.Renditions)}`).toBe('Ready');
    const preview = Buffer.from(await (await fetch(item.Renditions.Preview.Url)).arrayBuffer());
    const metadata = await sharp(preview).metadata();
    expect([metadata.format, metadata.width, metadata.height]).toEqual([
      'webp',
      item.Renditions.Preview.Width,
      item.Renditions.Preview.Height,
    ]);
  }
}, 300_000);

it('without qemu, the arm64 C libraries or the arm64 Node, says what to install', () => {
  const reason = arm64Missing('/nonexistent', '/nonexistent/node');
  for (const missing of [
    'qemu-user-static',
    'libc6:arm64',
    'libstdc++6:arm64',
    'dpkg --add-architecture arm64',
    'npm ci',
  ])
    expect(reason).toContain(missing);
});
