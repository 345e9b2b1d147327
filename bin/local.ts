/**
 * `npm start`: the service on http://127.0.0.1:${PORT:-3000}, data under ${DATA_DIR:-.data}, and, when
 * CHECKOUT_URL is a loopback URL (the default http://127.0.0.1:3001), the local checkout and builder site.
 */
import { resolve } from 'node:path';
import './require-java.ts';
import { LOCAL_CHECKOUT_URL, startLocalService } from '../lib/local/service.ts';
import type { LocalSite } from '../lib/local/site/server.ts';
import { loopbackAddress, startCheckoutStandIn } from '../lib/local/site/stand-in.ts';
import { claimStart } from '../lib/local/single-start.ts';
import { functionSettings } from '../lib/environment-variables.ts';
import { LAMBDA_TASKS } from '../lib/local/bundles/lambda-task.ts';

/** A value as a POSIX shell word: as is when it holds only safe characters, else single-quoted. */
const shellQuote = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`);

/** `export NAME=value ...`, leaving out CHECKOUT_URL when it is the default (every command assumes that one). */
function exportLine(values: { BASE: string; DATA_DIR: string; CHECKOUT_URL: string }): string {
  const { CHECKOUT_URL, ...always } = values;
  const named = { ...always, ...(CHECKOUT_URL === LOCAL_CHECKOUT_URL ? {} : { CHECKOUT_URL }) };
  return `export ${Object.entries(named)
    .map(([name, value]) => `${name}=${shellQuote(value)}`)
    .join(' ')}`;
}

/**
 * How long the shutdown after a signal may take before the process exits anyway: cutting it short loses
 * nothing (the engine's watchdog stops the engine with SIGTERM once this process is gone, the queue's
 * messages and the stream's checkpoints are on disk), and `npm start` is to exit within 10 s of SIGTERM.
 */
const SHUTDOWN_DEADLINE_MS = 8_000;

// Registered first: a signal during start-up exits at once, and exiting stops the engine (its exit hook).
let shutdown: (() => Promise<void>) | undefined;
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // Under `npm start` one Ctrl-C arrives twice (from the terminal, and forwarded by npm): one shutdown.
    if (closing) return;
    closing = true;
    setTimeout(() => {
      process.stderr.write(`shutdown still running after ${SHUTDOWN_DEADLINE_MS / 1000} s: exiting now\n`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    (shutdown?.() ?? Promise.resolve()).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const checkoutUrl = process.env.CHECKOUT_URL ?? LOCAL_CHECKOUT_URL;
// A second start on the same data folder or ports stops here, before it opens either.
const storagePorts = {
  DYNAMODB_PORT: Number(process.env.DYNAMODB_PORT ?? 0),
  S3_PORT: Number(process.env.S3_PORT ?? 0),
};
const site = loopbackAddress(checkoutUrl);
const releaseDataDir = await claimStart({ dataDir, port, host, site, checkoutUrl, storagePorts });
const service = await startLocalService({
  port,
  host,
  dataDir,
  dynamoPort: storagePorts.DYNAMODB_PORT,
  s3Port: storagePorts.S3_PORT,
  // DynamoDB deletes expired items some time after they expire; once a minute stands in for that.
  ttlIntervalMs: 60_000,
  // LOCAL_BUNDLES=1: the functions from their assets see their template's environment, and over it every setting
  // of this shell that the functions take (docs/configuration.md), as they do from source. Taken before the
  // local stack sets its defaults in this process's environment.
  env: functionSettings(process.env),
  onSynthesize: (reason) => process.stdout.write(`synthesizing the local stack first: ${reason} (about two minutes)\n`),
});
process.stdout.write(`photo-commerce service listening on ${service.url} (data in ${dataDir})\n`);
process.stdout.write(
  service.functionsFrom === 'source'
    ? 'functions run from source (LOCAL_BUNDLES=1 runs the synthesized assets of cdk.out.local)\n'
    : `functions run from their synthesized assets in ${service.functionsFrom}, each from its copy in ${LAMBDA_TASKS} (logs in ${dataDir}/logs)\n`,
);
let standIn: LocalSite | undefined;
if (!site) {
  process.stdout.write(`no local checkout site: CHECKOUT_URL ${checkoutUrl} is not a loopback http origin\n`);
} else {
  standIn = await startCheckoutStandIn(service.url, checkoutUrl);
  process.stdout.write(
    `local checkout and product builder site on ${standIn?.url} (a test stand-in: no real payments)\n`,
  );
}

// Another terminal's CLIs find this server through DATA_DIR, and the examples through BASE: a second clone on
// another port or folder is reached only with these.
process.stdout.write(`for other terminals (the CLIs and the README's examples find this server by these):\n`);
process.stdout.write(`  ${exportLine({ BASE: service.url, DATA_DIR: dataDir, CHECKOUT_URL: checkoutUrl })}\n`);

shutdown = async () => {
  await standIn?.close();
  await service.close();
  releaseDataDir();
};
