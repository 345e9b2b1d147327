/**
 * What the webhook tests share: a receiver on loopback that keeps every request by path and answers the
 * statuses a test scripts for a path (200 once they are used up), a poll for a condition, registration
 * through the API, and an event committed as a change commits one (its outbox record, in a transaction).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { TestService } from './service.ts';

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
export async function commitStatusEvent(orderGuid: string): Promise<{ id: string; time: number }> {
  const { transact } = await import('../../functions/store/transaction.ts');
  const { recordEvent } = await import('../../functions/store/outbox-store.ts');
  const event = {
    type: 'OrderStatusChanged' as const,
    id: `OrderStatusChanged-${orderGuid}-2`,
    time: Date.now(),
    detail: { OrderGuid: orderGuid, Status: 'Processing' },
  };
  expect((await transact([recordEvent(event)])).committed).toBe(true);
  return event;
}
