/**
 * Webhook deliveries across a stop of the local stack on its data folder: an event committed but not yet
 * read from the table stream when the stack stops is delivered after the restart (at least once), and a
 * delivery waiting for its retry (a stored visibility delay) still waits after the restart and is then sent
 * with the same webhook-id. The receiver is on loopback.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { temporaryDataDir } from '../support/data-dir.ts';
import type { TestService } from '../support/service.ts';
import { commitStatusEvent, startWebhookReceiver, until, type WebhookReceiver } from '../support/webhooks.ts';

const dataDir = temporaryDataDir('photo-commerce-webhooks-');
const env = { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '2' };
let service: TestService;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await dataDir.remove();
  await receiver?.close();
});

const to = (path: string) => receiver.to(path);

it('delivers an event committed before a stop after the restart, and keeps a waiting retry waiting', async () => {
  // The stream is read only when the test says so: the stop comes between the commit and its publication.
  service = await dataDir.start({ env, streamPollMs: 0, renditions: false });
  const key = await service.apiKey('restart-fulfilment', 'fulfilment');
  for (const path of ['/after-restart', '/retried'])
    expect(
      (
        await service.request('POST', '/webhooks', {
          apiKey: key,
          json: { Url: `${receiver.url}${path}`, EventTypes: ['OrderStatusChanged'] },
        })
      ).status,
    ).toBe(200);
  receiver.script('/retried', [500]);
  await commitStatusEvent('1'.repeat(32));
  await service.drainStream();
  // The first attempt failed; the retry waits 2 s in the stored queue.
  await until('the failed first attempt', () => to('/retried').length === 1);
  await commitStatusEvent('2'.repeat(32));
  await service.close();
  expect(to('/after-restart')).toHaveLength(1);

  service = await dataDir.start({ env, streamPollMs: 50, renditions: false });
  await until('the event committed before the stop', () => to('/after-restart').length >= 2);
  await until('the retry after the restart', () => to('/retried').length >= 3, 15_000);
  const retried = to('/retried');
  // The retry of the first event kept its webhook-id and its delay.
  const firstId = retried[0]!.headers['webhook-id'];
  const retry = retried.slice(1).find((request) => request.headers['webhook-id'] === firstId);
  expect(retry).toBeDefined();
  expect(retry!.at - retried[0]!.at).toBeGreaterThanOrEqual(1_900);
  expect(new Set(to('/after-restart').map((request) => request.headers['webhook-id'])).size).toBe(2);
}, 60_000);
