/**
 * What the webhook tests share: a receiver on loopback that keeps every request by path and answers the
 * statuses a test scripts for a path (200 once they are used up), the local stack beside it with the keys
 * and user a delivery test needs, a poll for a condition, registration through the API, and an event
 * committed as a change commits one (its outbox record, in a transaction).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { startTestService, type TestService } from './service.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** What reached `path`, in order. */
  to(path: string): Received[];
  /** The statuses `path` answers next, in turn. */
  script(path: string, statuses: number[]): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received = new Map<string, Received[]>();
  const scripts = new Map<string, number[]>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      received.set(path, [...(received.get(path) ?? []), { headers: request.headers, body, at: Date.now() }]);
      response.writeHead(scripts.get(path)?.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    to: (path) => received.get(path) ?? [],
    script: (path, statuses) => void scripts.set(path, [...statuses]),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Polls `probe` until it answers something truthy, and answers that; throws naming `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => T | Promise<T>,
  timeoutMs = 10_000,
): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Exclude<T, false | null | undefined>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A request's headers as the `standardwebhooks` verifier takes them. */
export const headerRecord = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

/** Registers a webhook of `apiKey` for `url`; it must be accepted. */
export async function registerWebhook(service: TestService, apiKey: string, url: string, EventTypes: string[]) {
  const created = await service.request('POST', '/webhooks', { apiKey, json: { Url: url, EventTypes } });
  expect(created.status, created.text).toBe(200);
  return created.body as { WebhookId: string; Secret: string };
}

/**
 * Commits an OrderStatusChanged event as a status change would (the outbox record of its transaction), from
 * the test process on the service's table; imported late, once the service has set the environment.
 */
export async function commitStatusEvent(orderGuid: string) {
  const { transact } = await import('../../functions/store/transaction.ts');
  const { recordEvent } = await import('../../functions/store/outbox-store.ts');
  const event = {
    type: 'OrderStatusChanged' as const,
    id: `OrderStatusChanged-${orderGuid}-2`,
    time: Date.now(),
    detail: { OrderGuid: orderGuid, UserId: 'someone', From: 'OrderReceived', To: 'Processing', Revision: 2 },
  };
  expect((await transact([recordEvent(event)])).committed).toBe(true);
  return event;
}

/** A delivery test's world: the local stack with loopback receivers allowed, a receiver, keys and a user. */
export interface WebhookStack {
  service: TestService;
  receiver: WebhookReceiver;
  siteKey: string;
  fulfilmentKey: string;
  /** A signed-in user's bearer token. */
  alice: string;
  /** Registers a webhook of `apiKey` for the receiver's `path`. */
  register(apiKey: string, path: string, EventTypes: string[]): ReturnType<typeof registerWebhook>;
  close(): Promise<void>;
}

/** Starts it with `env` (WEBHOOK_RETRY_SCHEDULE, ...); no renditions, the table stream read every 50 ms. */
export async function startWebhookStack(env: Record<string, string> = {}): Promise<WebhookStack> {
  const receiver = await startWebhookReceiver();
  const service = await startTestService({
    env: { WEBHOOK_ALLOW_LOOPBACK: 'true', ...env },
    renditions: false,
    streamPollMs: 50,
  });
  return {
    service,
    receiver,
    siteKey: await service.apiKey('webhooks-site', 'site'),
    fulfilmentKey: await service.apiKey('webhooks-fulfilment', 'fulfilment'),
    alice: await service.token('alice-webhooks'),
    register: (apiKey, path, EventTypes) => registerWebhook(service, apiKey, `${receiver.url}${path}`, EventTypes),
    async close() {
      await service.close();
      await receiver.close();
    },
  };
}
