/**
 * The renditions asset on arm64, as Lambda runs it: the asset synthesized by the renditions construct (its
 * esbuild bundle and sharp's linux-arm64 binaries) is invoked in the arm64 Node of the root's `node`
 * version under Debian's qemu-user-static, with Debian's arm64 C libraries (test/support/arm64.ts), in the
 * environment the template gives the function plus the local storage's endpoints, on the SQS event its queue
 * would deliver. A JPEG and a HEIC (libheif-js, which reads `__dirname`) pushed through the local service get
 * Ready renditions that this machine's sharp reads back. Slow (tens of seconds under emulation), no timing
 * asserted. Without qemu or the arm64 libraries it fails with what to install.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';
import { functionCredentials } from '../../lib/local/function-credentials.ts';
import { sqsEvent } from '../../lib/local/event-delivery.ts';
import type { EventEnvelope } from '../../functions/shared/events.ts';
import { ITEMS_ADDED } from '../../functions/contracts/library-events.ts';
import { arm64Missing, invokeArm64 } from '../support/arm64.ts';
import { pushFiles } from '../support/library-push.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { synthRenditionsAsset, type RenditionsAsset } from './renditions-stack.ts';

const FIXTURES = ['rendition-gps-orientation-6.jpg', 'heic.heic'];
const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));

const outdir = mkdtempSync(join(tmpdir(), 'cdk-renditions-arm64-'));
let asset: RenditionsAsset;
// Renditions are not made in process: only the arm64 asset makes them here.
let service: TestService | undefined;
let apiKey: string;

beforeAll(async () => {
  const missing = arm64Missing();
  if (missing) throw new Error(missing);
  asset = synthRenditionsAsset(outdir);
  service = await startTestService({ renditions: false });
  apiKey = await service.apiKey('renditions-arm64', 'library');
}, 300_000);

afterAll(async () => {
  await service?.close();
  rmSync(outdir, { recursive: true, force: true });
});

/** The environment Lambda gives the function: the template's (its own strings), then the local storage's endpoints and the function's credentials. */
const functionEnvironment = (): Record<string, string> => ({
  ...Object.fromEntries(
    Object.entries(asset.environment).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  ),
  TABLE_NAME: process.env.TABLE_NAME!,
  BUCKET_NAME: process.env.BUCKET_NAME!,
  DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
  S3_ENDPOINT: process.env.S3_ENDPOINT!,
  AWS_REGION: LOCAL_AWS_ENV.AWS_REGION,
  // The function's own credentials: the local S3 checks its signatures, and the IAM check its calls.
  AWS_ACCESS_KEY_ID: functionCredentials('make-renditions').accessKeyId,
  AWS_SECRET_ACCESS_KEY: functionCredentials('make-renditions').secretAccessKey,
  // Any other endpoint is a closed loopback port: nothing leaves the machine.
  AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
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

  const invocation = await invokeArm64(
    asset.dir,
    sqsEvent(await itemsAddedEnvelope(itemGuids), 1),
    functionEnvironment(),
  );
  expect(invocation.exitCode, `${invocation.stderr}\n${invocation.stdout}`).toBe(0);
  expect(invocation.answer).toEqual({ batchItemFailures: [] });

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
