/** `npm start`: the service on http://127.0.0.1:${PORT:-3000}, data under ${DATA_DIR:-.data}. */
import { resolve } from 'node:path';
import { startLocalService } from '../lib/local/service.ts';

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

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    service.close().then(() => process.exit(0), () => process.exit(1));
  });
}
