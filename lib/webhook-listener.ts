/**
 * `npm run -s webhooks -- --listen` (bin/webhooks.ts), like `stripe listen`: a receiver on a loopback port,
 * registered as a webhook of the given API key for the given event types, that prints each delivery with
 * whether its signature verifies (with `standardwebhooks`, as a partner would), and deletes the webhook
 * when it stops. The service must allow loopback receivers (WEBHOOK_ALLOW_LOOPBACK=true, as `npm start`
 * does not by default); its refusal says so.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { PhotoCommerceClient } from '../client/src/index.ts';

export interface ListenOptions {
  /** The service's base URL. */
  baseUrl: string;
  apiKey: string;
  eventTypes: string[];
  /** The receiver's port; 0 picks a free one. */
  port?: number;
  log: (line: string) => void;
}

export interface Listener {
  webhookId: string;
  url: string;
  /** Deletes the webhook and stops the receiver. */
  stop(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const headerRecord = (request: IncomingMessage) =>
  Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));

/** One line per delivery: when, what, its webhook-id and the verdict on its signature, then the payload. */
function describe(body: string, headers: Record<string, string>, secret: string): { line: string; verified: boolean } {
  const id = headers['webhook-id'] ?? '(no webhook-id)';
  try {
    const payload = new Webhook(secret).verify(body, headers) as { type?: string };
    return {
      line: `${new Date().toISOString()} ${payload.type ?? '?'} ${id} signature verified\n${body}`,
      verified: true,
    };
  } catch (error) {
    const reason = error instanceof WebhookVerificationError ? error.message : String(error);
    return { line: `${new Date().toISOString()} ${id} signature INVALID (${reason})\n${body}`, verified: false };
  }
}

export async function listen(options: ListenOptions): Promise<Listener> {
  const client = new PhotoCommerceClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });
  let secret = '';
  const server: Server = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      const { line, verified } = describe(body, headerRecord(request), secret);
      options.log(line);
      // A delivery that does not verify is refused, as a receiver should: the service retries it.
      response.writeHead(verified ? 204 : 400).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  let webhookId: string;
  try {
    const created = await client.webhooks.create({ Url: url, EventTypes: options.eventTypes });
    ({ WebhookId: webhookId, Secret: secret } = created);
  } catch (error) {
    server.close();
    throw error;
  }
  return {
    webhookId,
    url,
    async stop() {
      await client.webhooks.delete(webhookId);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
