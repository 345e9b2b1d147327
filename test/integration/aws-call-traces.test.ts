/**
 * The service's AWS calls in the request's X-Ray trace (functions/shared/tracing.ts), over loopback: a UDP
 * listener stands in for Lambda's X-Ray daemon (AWS_XRAY_DAEMON_ADDRESS), requests carry their trace header
 * as API Gateway passes it, and each request's DynamoDB and S3 calls arrive as subsegments of its own trace
 * and parent, two requests at once included. Messages to SQS and events to EventBridge carry the trace on.
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { traced } from '../../functions/shared/tracing.ts';
import { startLocalSqsFront, type LocalSqsFront } from '../../lib/local/sqs-front.ts';
import { startLocalQueue, type LocalQueue } from '../../lib/local/event-delivery.ts';
import { startLocalEventBus, type LocalEventBus } from '../../lib/local/eventbridge.ts';
import { asInvocationOf } from '../../lib/local/source-invocations.ts';
import { LOCAL_AWS_ENV } from '../../lib/local/storage.ts';
import { inProcessIt } from '../support/bundles.ts';
import { png } from '../support/images.ts';
import { startTestService, type TestService } from '../support/service.ts';

interface Subsegment {
  name: string;
  id: string;
  trace_id: string;
  parent_id: string;
  type: string;
  namespace: string;
  start_time: number;
  end_time: number;
  aws: { operation: string; table_name?: string; bucket_name?: string };
  http?: { response: { status: number } };
  error?: boolean;
}

const daemon = createSocket('udp4');
const received: Subsegment[] = [];
daemon.on('message', (datagram) => {
  const [header, document] = datagram.toString('utf8').split('\n');
  expect(JSON.parse(header!)).toEqual({ format: 'json', version: 1 });
  received.push(JSON.parse(document!) as Subsegment);
});

const dataDir = mkdtempSync(join(tmpdir(), 'aws-call-traces-'));
let service: TestService;
let apiKey: string;
let sqsFront: LocalSqsFront;
let queue: LocalQueue;
let bus: LocalEventBus;

beforeAll(async () => {
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  process.env.AWS_XRAY_DAEMON_ADDRESS = `127.0.0.1:${(daemon.address() as AddressInfo).port}`;
  service = await startTestService();
  apiKey = await service.apiKey('traces', 'library');
  sqsFront = await startLocalSqsFront();
  queue = startLocalQueue({
    name: 'traced',
    handler: 'traced',
    maxReceiveCount: 1,
    folder: join(dataDir, 'queue'),
    endpoint: sqsFront.endpoint,
    loadHandler: async () => async () => ({ batchItemFailures: [] }),
  });
  sqsFront.serve(queue);
  bus = await startLocalEventBus({ busName: 'traced', eventsFile: join(dataDir, 'events.jsonl') });
});
afterAll(async () => {
  delete process.env.AWS_XRAY_DAEMON_ADDRESS;
  await queue?.close();
  await sqsFront?.close();
  await bus?.close();
  await service?.close();
  daemon.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const traceHeader = (root: string, parent: string) => `Root=${root};Parent=${parent};Sampled=1;Lineage=a87bd80c:0`;

/** Waits until `count` subsegments of `root` came in (UDP gives no answer to wait for). */
async function subsegmentsOf(root: string, count: number): Promise<Subsegment[]> {
  const ofRoot = () => received.filter((subsegment) => subsegment.trace_id === root);
  while (ofRoot().length < count) await new Promise((resolve) => setTimeout(resolve, 10));
  return ofRoot();
}

describe('AWS calls in the request trace', () => {
  inProcessIt("sends each request's DynamoDB and S3 calls as subsegments of its own trace and parent", async () => {
    const requests = [
      { root: '1-6a1b2c3d-000000000000000000000001', parent: '53995c3f42cd8ad8' },
      { root: '1-6a1b2c3d-000000000000000000000002', parent: '7f4e1b2a9c0d3e5f' },
    ];
    await Promise.all(
      requests.map(async ({ root, parent }, index) => {
        const form = new FormData();
        form.append('image', new Blob([png(2, 2, index)]), 'photo.png');
        const response = await fetch(`${service.url}/library/push`, {
          method: 'POST',
          headers: { 'X-SERVICE-API-Key': apiKey, 'X-Amzn-Trace-Id': traceHeader(root, parent) },
          body: form,
        });
        expect(response.status, await response.text()).toBe(200);
      }),
    );
    for (const { root, parent } of requests) {
      // The authorizer's key lookup, the push's object and its records at least.
      const subsegments = await subsegmentsOf(root, 3);
      expect(new Set(subsegments.map((subsegment) => subsegment.parent_id))).toEqual(new Set([parent]));
      expect(new Set(subsegments.map((subsegment) => subsegment.name))).toEqual(new Set(['DynamoDB', 'S3']));
      for (const subsegment of subsegments) {
        expect(subsegment).toMatchObject({ type: 'subsegment', namespace: 'aws', http: { response: { status: 200 } } });
        expect(subsegment.id).toMatch(/^[0-9a-f]{16}$/);
        expect(subsegment.end_time).toBeGreaterThanOrEqual(subsegment.start_time);
      }
      expect(subsegments.find((subsegment) => subsegment.name === 'S3')?.aws).toMatchObject({
        operation: 'PutObject',
        bucket_name: expect.any(String),
      });
      expect(subsegments.find((subsegment) => subsegment.name === 'DynamoDB')?.aws.table_name).toEqual(
        expect.any(String),
      );
      expect(new Set(subsegments.map((subsegment) => subsegment.id)).size).toBe(subsegments.length);
    }
  });

  inProcessIt('carries the trace on SQS messages and EventBridge events, under the call that sent them', async () => {
    const root = '1-6a1b2c3d-000000000000000000000003';
    const header = traceHeader(root, '0123456789abcdef');
    const credentials = {
      accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID,
      secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY,
    };
    const sent: string[] = [];
    const sqs = traced(new SQSClient({ endpoint: sqsFront.endpoint, region: 'us-east-1', credentials }));
    const eventBridge = traced(new EventBridgeClient({ endpoint: bus.endpoint, region: 'us-east-1', credentials }));
    // What goes over the wire, read after the SDK serialized it.
    const recordBody =
      (next: (args: { request: unknown }) => Promise<unknown>) => async (args: { request: unknown }) => {
        sent.push(Buffer.from((args.request as { body: Uint8Array }).body).toString());
        return next(args);
      };
    sqs.middlewareStack.add(recordBody as never, { step: 'build' });
    eventBridge.middlewareStack.add(recordBody as never, { step: 'build' });
    await asInvocationOf(
      'traced',
      'request-1',
      async () => {
        await sqs.send(
          new SendMessageBatchCommand({ QueueUrl: queue.url, Entries: [{ Id: 'a', MessageBody: 'one' }] }),
        );
        await eventBridge.send(
          new PutEventsCommand({
            Entries: [{ EventBusName: 'traced', Source: 'test', DetailType: 'Traced', Detail: '{}' }],
          }),
        );
      },
      header,
    );
    const [batch, events] = sent.map((body) => JSON.parse(body) as { Entries: Record<string, any>[] });
    const [sendCall, putCall] = await subsegmentsOf(root, 2);
    expect([sendCall?.aws.operation, putCall?.aws.operation]).toEqual(['SendMessageBatch', 'PutEvents']);
    // The message's and the event's parent is the call that sent it; the header's other fields are kept.
    expect(batch?.Entries[0]?.MessageSystemAttributes).toEqual({
      AWSTraceHeader: { DataType: 'String', StringValue: header.replace('0123456789abcdef', sendCall!.id) },
    });
    expect(events?.Entries[0]?.TraceHeader).toBe(header.replace('0123456789abcdef', putCall!.id));
  });
});
