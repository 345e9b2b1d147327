/**
 * Library events reach only the webhooks of the key that caused them: a push's LibraryItemsAdded, and the
 * LibraryItemRenditionsDecided the renditions function records when it decides (Ready here), each verified
 * with `standardwebhooks`; another library key's webhook for the same types hears nothing of them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { pushFiles } from '../support/library-push.ts';
import { png } from '../support/images.ts';

let service: TestService;
let receiver: Server;
let receiverUrl: string;
const received: { path: string; headers: Record<string, string>; body: string }[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      received.push({ path: request.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  service = await startTestService({ env: { WEBHOOK_ALLOW_LOOPBACK: 'true' }, streamPollMs: 50 });
});
afterAll(async () => {
  await service?.close();
  receiver?.close();
});

it("sends a push's LibraryItemsAdded and its renditions' decision to the pushing key's webhook only", async () => {
  const EventTypes = ['LibraryItemsAdded', 'LibraryItemRenditionsDecided'];
  const pusher = await service.apiKey('events-pusher', 'library');
  const bystander = await service.apiKey('events-bystander', 'library');
  const mine = await service.request('POST', '/webhooks', {
    apiKey: pusher,
    json: { Url: `${receiverUrl}/mine`, EventTypes },
  });
  expect(mine.status, mine.text).toBe(200);
  const theirs = await service.request('POST', '/webhooks', {
    apiKey: bystander,
    json: { Url: `${receiverUrl}/theirs`, EventTypes },
  });
  expect(theirs.status, theirs.text).toBe(200);

  const { itemGuids } = await pushFiles(service.url, pusher, [{ bytes: png(4, 3, 7) }]);
  const deadline = Date.now() + 20_000;
  while (received.filter((delivery) => delivery.path === '/mine').length < 2) {
    if (Date.now() > deadline) throw new Error(`deliveries so far: ${JSON.stringify(received.map((r) => r.path))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const payloads = received
    .filter((delivery) => delivery.path === '/mine')
    .map((delivery) => new Webhook(mine.body.Secret).verify(delivery.body, delivery.headers) as any);
  const byType = Object.fromEntries(payloads.map((payload) => [payload.type, payload.data]));
  expect(byType.LibraryItemsAdded.ItemGuids).toEqual(itemGuids);
  expect(byType.LibraryItemRenditionsDecided).toMatchObject({ ItemGuid: itemGuids[0], Status: 'Ready' });
  await service.drainEvents();
  expect(received.filter((delivery) => delivery.path === '/theirs')).toEqual([]);
}, 40_000);
