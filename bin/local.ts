/**
 * `npm start`: the service on http://127.0.0.1:${PORT:-3000}, data under ${DATA_DIR:-.data}, and, when
 * CHECKOUT_URL is a loopback URL (the default http://127.0.0.1:3001), the local checkout and builder site.
 */
import { resolve } from 'node:path';
import './require-java.ts';
import { startLocalService } from '../lib/local/service.ts';
import type { LocalSite } from '../lib/local/site/server.ts';
import { loopbackAddress, startCheckoutStandIn } from '../lib/local/site/stand-in.ts';

// Registered first: a signal during start-up exits at once, and exiting stops the engine (its exit hook).
let shutdown: (() => Promise<void>) | undefined;
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    (shutdown?.() ?? Promise.resolve()).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

const port = Number(process.env.PORT ?? 3000);
const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const service = await startLocalService({
  port,
  host: process.env.HOST ?? '127.0.0.1',
  dataDir,
  dynamoPort: Number(process.env.DYNAMODB_PORT ?? 0),
  s3Port: Number(process.env.S3_PORT ?? 0),
  // DynamoDB deletes expired items some time after they expire; once a minute stands in for that.
  ttlIntervalMs: 60_000,
});
process.stdout.write(`photo-commerce service listening on ${service.url} (data in ${dataDir})\n`);
const checkoutUrl = process.env.CHECKOUT_URL as string;
let site: LocalSite | undefined;
if (!loopbackAddress(checkoutUrl)) {
  process.stdout.write(`no local checkout site: CHECKOUT_URL ${checkoutUrl} is not a loopback http origin\n`);
} else {
  // The site is a convenience: when its port is taken (another `npm start`), the service runs on without it.
  try {
    site = await startCheckoutStandIn(service.url, checkoutUrl);
    process.stdout.write(
      `local checkout and product builder site on ${site?.url} (a test stand-in: no real payments)\n`,
    );
  } catch (error) {
    process.stderr.write(`local checkout site not started on ${checkoutUrl}: ${(error as Error).message}\n`);
  }
}

shutdown = async () => {
  await site?.close();
  await service.close();
};
