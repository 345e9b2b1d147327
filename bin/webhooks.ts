/**
 * `npm run -s webhooks -- --listen --key <API key> --events OrderCreated,OrderStatusChanged [--url <base URL>]
 * [--port <n>]`: registers a loopback receiver as a webhook of that key, prints each delivery with whether its
 * signature verifies, and deletes the webhook on Ctrl-C (lib/webhook-listener.ts). The service is `--url`, else
 * BASE, else the default server (bin/cli-args.ts); it must run with WEBHOOK_ALLOW_LOOPBACK=true.
 */
import { listen } from '../lib/webhook-listener.ts';
import { BASE_USAGE, cliArgs, reachableBase } from './cli-args.ts';

const args = cliArgs({
  listen: { type: 'boolean' },
  key: { type: 'string' },
  events: { type: 'string' },
  url: { type: 'string' },
  port: { type: 'string' },
});
if (!args.listen || !args.key || !args.events) {
  process.stderr.write(
    `usage: npm run -s webhooks -- --listen --key <API key> --events <type,type> [--url <${BASE_USAGE}>] [--port <receiver port>]\n`,
  );
  process.exit(2);
}

const baseUrl = await reachableBase(args.url);
try {
  const listener = await listen({
    baseUrl,
    apiKey: args.key,
    eventTypes: args.events.split(',').map((type) => type.trim()),
    port: args.port === undefined ? 0 : Number(args.port),
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`Ready: webhook ${listener.webhookId} of ${baseUrl} -> ${listener.url}; Ctrl-C deletes it.\n`);
  const stop = () => {
    listener.stop().then(
      () => {
        process.stdout.write(`Deleted webhook ${listener.webhookId}.\n`);
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`Could not delete webhook ${listener.webhookId}: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
