/**
 * Invokes a Lambda asset's handler once, as the Lambda runtime would, in whatever Node runs this script (the
 * arm64 one under qemu: test/support/arm64.ts): `node invoke-asset.ts <asset dir> <event file> <answer file>`
 * imports `<asset dir>/index.mjs`, hands `handler` the event and a context, and writes its answer as JSON to
 * the answer file, leaving stdout to the function's logs as in Lambda. Node built-ins only: the asset brings
 * everything else.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [assetDir, eventFile, answerFile] = process.argv.slice(2);
if (!assetDir || !eventFile || !answerFile)
  throw new Error('usage: node invoke-asset.ts <asset dir> <event file> <answer file>');

const { handler } = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as {
  handler: (event: unknown, context: unknown) => Promise<unknown>;
};
const deadline = Date.now() + 5 * 60_000;
const context = {
  functionName: 'invoke-asset',
  functionVersion: '$LATEST',
  awsRequestId: 'invoke-asset',
  getRemainingTimeInMillis: () => deadline - Date.now(),
};
const answer = await handler(JSON.parse(readFileSync(eventFile, 'utf8')), context);
writeFileSync(answerFile, JSON.stringify(answer ?? null));
